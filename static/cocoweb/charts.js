/* Draws every Plotly figure on the page, also in content htmx swaps in later. Plotly itself (the
   partial bundle, static/vendor/plotly-cocoweb.min.js) is fetched only when a page has a chart to
   draw: this file's <script> names it in data-plotly, and pages without a chart never load it.

   Markup (shared by every app):
     <script src=".../charts.js" data-plotly="{% static 'vendor/plotly-cocoweb.min.js' %}" defer></script>
     {{ figure|json_script:"fig-x" }}
     <div class="chart" data-chart="fig-x"></div>
   Optional on the div:
     data-click-target="#drawer"  a click on a point whose customdata is a URL loads it there (htmx)
     data-click="navigate"        a click on such a point opens the URL as a page
     data-chart-narrow="fig-x-narrow"  the figure to draw when the chart is narrower than 700 px
                                  (a phone: a layout whose labels were placed for that width)
   Figures arrive as JSON through json_script, never as HTML, so text in them cannot run. */
(function () {
  "use strict";
  var me = document.currentScript;
  var plotlySrc = me && me.dataset.plotly;
  var waiting = [];  // charts found before Plotly arrived
  var NARROW_BELOW_PX = 700;  // explorer/charts/graph.py: a desktop layout needs about this width

  function loadPlotly(el) {
    waiting.push(el);
    if (waiting.length > 1 || !plotlySrc) return;  // already on its way (or nowhere to load from)
    var s = document.createElement("script");
    s.src = plotlySrc;
    s.onload = function () { var els = waiting; waiting = []; els.forEach(draw); };
    document.head.appendChild(s);
  }

  function hrefOf(point) {
    var c = point && point.customdata;
    if (Array.isArray(c)) c = c[0];
    return typeof c === "string" && c.charAt(0) === "/" ? c : null;  // same-site paths only
  }

  function draw(el) {
    if (el.dataset.drawn) return;
    var narrow = el.dataset.chartNarrow && el.clientWidth < NARROW_BELOW_PX;
    var src = document.getElementById(narrow ? el.dataset.chartNarrow : el.dataset.chart);
    if (!src) return;
    if (typeof Plotly === "undefined") { loadPlotly(el); return; }
    var fig = JSON.parse(src.textContent);
    el.dataset.drawn = "1";
    Plotly.newPlot(el, fig.data || [], fig.layout || {}, {responsive: true, displaylogo: false}).then(function () {
      el.dataset.ready = "1";
    });
    el.on("plotly_click", function (ev) {
      var href = hrefOf(ev.points && ev.points[0]);
      if (!href) return;
      var target = el.dataset.clickTarget;
      if (target && window.htmx) {
        htmx.ajax("GET", href, {target: target, swap: "innerHTML"});
      } else if (target || el.dataset.click === "navigate") {
        window.location.href = href;
      }
    });
  }

  function drawAll(root) {
    (root.querySelectorAll ? root : document).querySelectorAll("[data-chart]").forEach(draw);
    if (root.matches && root.matches("[data-chart]")) draw(root);
  }

  document.addEventListener("click", function (ev) {
    var close = ev.target.closest && ev.target.closest("[data-drawer-close]");
    if (close) { var d = close.closest(".drawer"); if (d) d.innerHTML = ""; }
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape") document.querySelectorAll(".drawer").forEach(function (d) { d.innerHTML = ""; });
  });

  if (window.htmx) htmx.onLoad(drawAll);  // content swapped in later
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { drawAll(document); });
  } else {
    drawAll(document);
  }
})();
