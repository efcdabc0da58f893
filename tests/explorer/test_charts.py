"""Figure builders, no database: traces, axes, click targets, empty states, escaping."""

from __future__ import annotations

import pytest

from explorer import charts
from explorer.charts import overview as overview_charts
from explorer.charts.graph import GraphEdge, GraphNode, radial_layout


def test_relation_distribution_sorted_bars():
    fig = overview_charts.relation_distribution([("xWant", 5), ("xAttr", 9), ("oReact", 1)])
    (bar,) = fig.data
    assert bar.type == "bar"
    assert bar.orientation == "h"
    assert list(bar.y) == ["oReact", "xWant", "xAttr"]
    assert list(bar.x) == [1, 5, 9]


def test_degree_distribution_is_log_log_and_drops_zero():
    fig = overview_charts.degree_distribution([(0, 4), (1, 10), (3, 2)])
    assert fig.layout.xaxis.type == "log"
    assert fig.layout.yaxis.type == "log"
    assert list(fig.data[0].x) == [1, 3]


@pytest.mark.parametrize(
    "builder,args",
    [
        (overview_charts.relation_distribution, ([],)),
        (overview_charts.degree_distribution, ([(0, 3)],)),
        (overview_charts.top_nodes, ([],)),
        (charts.position_bias, (5, [])),
        (charts.coco_quadrants, ({}, {})),
        (
            charts.labelled_scatter,
            ([],),
        ),
        (charts.line_series, ([],)),
    ],
)
def test_empty_states_have_no_traces_and_say_why(builder, args):
    kwargs = {"x_title": "x", "y_title": "y"} if builder is charts.labelled_scatter else {}
    if builder is charts.line_series:
        kwargs = {"x_title": "d"}
    fig = builder(*args, **kwargs)
    assert charts.is_empty(fig)
    assert fig.layout.annotations
    assert fig.layout.annotations[0].text


def test_grouped_bars_one_trace_per_run_with_drawer_links():
    s1 = charts.Series("run 1", [0.5, 1.0], [2, 1], ["/a?r=x", "/a?r=y"])
    s2 = charts.Series("run 2", [0.25, None], [4, 0], ["/b?r=x", "/b?r=y"])
    fig = charts.grouped_bars(["xWant", "xAttr"], [s1, s2], axis="relation")
    assert [t.name for t in fig.data] == ["run 1", "run 2"]
    assert fig.layout.barmode == "group"
    assert tuple(fig.layout.yaxis.range) == (0, 1.04)  # no n labels above the bars any more (#29 item 13)
    assert fig.layout.xaxis.ticktext[1].endswith(">n=1</span>")  # run 2 has no xAttr item: not n=0–1
    assert list(fig.data[0].customdata) == ["/a?r=x", "/a?r=y"]
    assert charts.is_empty(charts.grouped_bars([], [s1], axis="relation"))


def test_grouped_bars_plain_traces_are_what_plotly_validation_makes_of_them():
    """grouped_bars builds its traces as plain dicts, unvalidated (a 12-run compare's validation cost
    ~40 ms): rebuilt with plotly's validation the figure is the same - a misspelt property or a
    value plotly refuses would raise here, a value it coerces would differ."""
    import json

    import plotly.graph_objects as go

    from explorer.panels.base import figure_json

    with_ci = charts.Series(
        "run <1>", [0.5, 0.0, None], [2, 3, 0], ["/a?g=x", "/a?g=y", "/a?g=z"], [(0.1, 0.9), (0.0, 0.56), None]
    )
    without = charts.Series("run 2", [0.25, 1.0, 0.5], [4, 1, 2])
    for series, percent in (([with_ci, without], True), ([without], False)):
        fig = charts.grouped_bars(["xWant", "xAttr", "oEffect"], series, axis="relation", percent=percent)
        plain = json.loads(figure_json(fig))
        validated = json.loads(figure_json(go.Figure(plain)))  # validated: go.Bar per trace
        assert plain == validated
        assert [t["type"] for t in plain["data"]] == ["bar"] * len(series)
    assert plain["data"][0].get("error_y") is None  # no interval: no error bar, as go.Bar left out None


def test_position_bias_rows_normalised_with_no_answer_column():
    cells = [(0, 0, 6, "/h00"), (0, 1, 2, "/h01"), (1, 1, 1, "/h11"), (1, -1, 3, "/h1n")]
    fig = charts.position_bias(2, cells)
    hm = fig.data[0]
    assert list(hm.x) == ["A", "B", "none"]
    assert list(hm.y) == ["A", "B"]
    assert [list(r) for r in hm.z] == [[0.75, 0.25, 0.0], [0.0, 0.25, 0.75]]
    assert [list(r) for r in hm.text] == [[6, 2, 0], [0, 1, 3]]
    assert hm.customdata[1][2] == "/h1n"


def test_coco_quadrants_layout_and_links():
    counts = {(True, True): 5, (True, False): 3, (False, True): 2, (False, False): 0}
    hrefs = {k: f"/q{int(k[0])}{int(k[1])}" for k in counts}
    hm = charts.coco_quadrants(counts, hrefs).data[0]
    assert [list(r) for r in hm.z] == [[5, 3], [2, 0]]
    assert "right for the wrong reason" in hm.text[1][0].replace("<br>", " ")
    assert "knows the facts but cannot compose them" in hm.text[0][1].replace("<br>", " ")
    assert hm.customdata[1][0] == "/q01"  # (knows=False, solves=True)


def test_coco_quadrant_labels_fit_their_cells():
    """#29 item 13: the labels were one line of 16 px text, wider than a half-width panel's cell
    (~200 px), and Plotly clipped them; now no line is longer than 20 characters of 14 px text."""
    counts = {(True, True): 5, (True, False): 3, (False, True): 2, (False, False): 1000}
    hm = charts.coco_quadrants(counts, {}).data[0]
    assert hm.textfont.size <= 14
    for row in hm.text:
        for cell in row:
            for line in cell.split("<br>"):
                assert len(line) <= 20, line


def test_labelled_scatter_fits_a_line_and_reports_r():
    pts = [("a", 0.1, 0.2, "/a"), ("b", 0.5, 0.5, "/b"), ("c", 0.9, 0.85, "/c")]
    fig = charts.labelled_scatter(pts, x_title="MEM×COM", y_title="FAI")
    assert len(fig.data) == 2
    assert fig.data[1].mode == "lines"
    r = charts.pearson([0.1, 0.5, 0.9], [0.2, 0.5, 0.85])
    assert fig.layout.title.text == f"r = {r:.3f} (n = 3)"
    two = charts.labelled_scatter(pts[:2], x_title="x", y_title="y")
    assert len(two.data) == 1
    assert two.layout.title.text == "n = 2"


def test_pearson_edge_cases():
    assert charts.pearson([1, 2], [1, 2]) is None
    assert charts.pearson([1, 1, 1], [1, 2, 3]) is None
    assert charts.pearson([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)


def test_radial_layout_places_hops_on_rings():
    nodes = [GraphNode(1, "c", 0), GraphNode(2, "a", 1), GraphNode(3, "b", 1), GraphNode(4, "z", 2, parent=2)]
    pos = radial_layout(nodes)
    assert pos[1] == (0.0, 0.0)
    assert all(abs((x * x + y * y) ** 0.5 - 1) < 1e-9 for x, y in (pos[2], pos[3]))
    assert abs((pos[4][0] ** 2 + pos[4][1] ** 2) ** 0.5 - 2) < 1e-9
    assert pos[4][0] > 0  # next to its parent at angle 0


def test_neighbourhood_figure_escapes_text_and_links_nodes():
    nodes = [GraphNode(1, "<script>x</script>", 0), GraphNode(2, "b", 1, href="/n/2")]
    fig = charts.neighbourhood_figure(nodes, [GraphEdge(1, 2, "xWant")])
    edges, mids, pts = fig.data
    assert list(edges.x)[:2] == [0.0, 1.0]
    assert "xWant" in mids.hovertext[0]
    assert "&lt;script&gt;" in mids.hovertext[0]
    assert "&lt;script&gt;x&lt;/script&gt;" in pts.hovertext
    assert "/n/2" in pts.customdata


def test_query_structure_lays_out_a_2p_chain():
    chain = [
        ("PersonX does hair", "xEffect", "PersonX looks pretty"),
        ("PersonX looks pretty", "xNeed", "PersonX curl hair"),
    ]
    fig = charts.query_structure_figure(chain, answers=["PersonX curl hair"])
    (pts,) = fig.data
    assert list(pts.x) == [0.0, 2.0, 4.0]
    assert list(pts.customdata) == ["anchor", "variable", "answer"]
    rel_labels = [a.text for a in fig.layout.annotations if a.text]
    assert rel_labels == ["xEffect", "xNeed"]
    assert charts.is_empty(charts.query_structure_figure([]))


def test_query_structure_2i_has_two_anchors_at_depth_zero():
    chain = [("A", "xAttr", "T"), ("B", "xReact", "T")]
    (pts,) = charts.query_structure_figure(chain, answers=["T"]).data
    assert list(pts.customdata) == ["anchor", "answer", "anchor"]
    assert list(pts.x) == [0.0, 2.0, 0.0]


def test_silicon_scatter_is_a_valid_figure_with_links_and_r():
    """Built without plotly's per-element validation (4,000 points): validating it afterwards must pass."""
    import plotly.graph_objects as go

    from explorer.charts import nww as nww_charts

    pts = [(0.2, 1, "/s/1"), (0.6, 0, "/s/2"), (0.9, 1, "/s/3")]
    fig = nww_charts.silicon_vs_human(pts, human_axis="human <b>rate</b>")
    go.Figure(fig.to_plotly_json())  # validates every property; raises on a wrong name or value
    (dots,) = fig.data
    assert dots.type == "scatter"
    assert list(dots.customdata) == ["/s/1", "/s/2", "/s/3"]
    assert "&lt;b&gt;" in dots.hovertemplate
    assert fig.layout.title.text.startswith("r = ")
    assert tuple(fig.layout.xaxis.range) == (-0.02, 1.02)
    assert fig.layout.yaxis.title.text == "human &lt;b&gt;rate&lt;/b&gt;"
    assert charts.is_empty(nww_charts.silicon_vs_human([], human_axis="h"))


def test_consensus_awareness_and_human_distribution():
    from explorer.charts import nww as nww_charts

    fig = nww_charts.consensus_awareness(
        [("m1", 0.7, 0.8, "/r/1", "runs"), ("m2", 0.6, 0.9, "", "stored"), ("m3", None, 0.5, "", "runs")]
    )
    # runs are drawn last (on top of stored answers); the M=25% curve lies outside the zoomed square: no label
    assert [t.name for t in fig.data][-2:] == ["stored", "m1"]  # each run its own trace, named (#29 item 13)
    assert len(fig.layout.annotations) == 2
    assert fig.layout.xaxis.title.text == "consensus C"
    assert fig.layout.xaxis.tickformat == ".0%"
    hist = nww_charts.model_in_human_distribution([0.5, 0.6, 0.7, 0.8], [("m", 0.65)])
    assert hist.data[0].type == "histogram"
    assert len(hist.layout.shapes) == 1
    assert "beats 50%" in hist.layout.annotations[0].text


def test_empty_state_message_is_wrapped_and_escaped():
    msg = "No question of this run has a final human label yet: levels come from <the annotation app's> campaigns."
    text = charts.empty_figure(msg).layout.annotations[0].text
    lines = text.split("<br>")
    assert len(lines) > 1
    assert all(len(line) <= 60 for line in lines)
    assert "&lt;the annotation app's&gt;" in text
    assert "<the" not in text


def test_neighbourhood_edges_carry_their_relation_and_labels_do_not_overlap():
    """#29 item 13: relations were only in the edge markers' hover, and every label was drawn
    whatever it covered."""
    from explorer.charts.graph import Labels

    rels = ["xWant", "xEffect", "xReact", "oReact", "xAttr", "xNeed"]
    nodes = [GraphNode(1, "PersonX goes skydiving", 0)]
    nodes += [GraphNode(10 + i, f"neighbour {i}", 1) for i in range(len(rels))]
    nodes += [GraphNode(100, "far away", 2, parent=10)]
    edges = [GraphEdge(1, 10 + i, r) for i, r in enumerate(rels)] + [GraphEdge(10, 100, "HinderedBy")]
    fig = charts.neighbourhood_figure(nodes, edges)
    written = sorted(a.text for a in fig.layout.annotations)
    assert written == sorted([*rels, "HinderedBy"])  # every edge, here where there is room
    pts = fig.data[-1]
    assert all(pts.text)  # and every node's label
    crowded = [GraphNode(1, "PersonX realize", 0)] + [
        GraphNode(10 + i, f"PersonX does a fairly long thing number {i}", 1) for i in range(24)
    ]
    fig = charts.neighbourhood_figure(crowded, [GraphEdge(1, 10 + i, "xEffect") for i in range(24)])
    pts = fig.data[-1]
    assert 0 < sum(1 for t in pts.text if t) < 25  # some left to the hover ...
    assert all(h for h in pts.hovertext)  # ... which every node keeps
    assert 0 < len(fig.layout.annotations) <= 24  # nearer or farther along its edge where the first place is taken
    labels = Labels(100)
    assert labels.place(0, 0, "abc", "middle")
    assert not labels.place(0.05, 0, "abc", "middle")  # overlaps the first
    assert labels.place(0, 1, "abc", "middle")
