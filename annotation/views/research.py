"""Researcher pages: new campaign, dashboard (agreement numbers + Plotly charts), open/close,
adjudication queue and decisions, ratings import; admin: verified-set exports."""

from __future__ import annotations

from typing import Any

import numpy as np
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.roles import ADMIN, RESEARCHER, has_role, role_required
from annotation import charts
from annotation.forms import AdjudicationForm, CampaignForm, RatingsImportForm
from annotation.models import Campaign
from annotation.selectors.agreement import (
    NWW_MIN_RATERS,
    campaign_agreement,
    campaign_item_labels,
    campaign_matrices,
    campaign_nww,
)
from annotation.selectors.campaigns import (
    CampaignProgress,
    adjudicated_labels,
    answered_items,
    answers_on_settled,
    campaign_progress,
    campaign_with_sets,
    final_label_of,
    item_responses,
    rater_names,
    recent_responses,
    regular_answer_counts,
    regular_items,
)
from annotation.selectors.campaigns import adjudication_queue as adjudication_rows
from annotation.selectors.export_access import REFUSAL, campaign_export_allowed
from annotation.selectors.verdicts import generation_judgements
from annotation.selectors.verification import campaign_quality_rows, model_agreement
from annotation.services import campaign_exports as exports
from annotation.services import campaigns as services
from annotation.services.ratings_import import RatingsImportRefused, ratings_import
from annotation.services.reviews import review_progress, review_stage
from annotation.services.verified import preview_text, verified_set_preview
from annotation.submissions import answer_from_post
from annotation.views.presentation import option_rows
from cocoweb.http import Request
from cocoweb.uploads import accepts_uploads
from commonsense.annotators import AGREEMENT_RULE, RULE
from commonsense.validation import JUDGEMENT_NAMES, JUDGEMENTS
from commonsense.verified_needs import NEEDS_RULE


def _campaign(slug: str) -> Campaign:
    return get_object_or_404(campaign_with_sets(), name=slug)


@accepts_uploads
@role_required(RESEARCHER)
def campaign_new(request: Request) -> HttpResponse:
    # ?source=qs:NAME from a set's page; a gold file for the qualification may come with the form
    form = CampaignForm(request.POST or None, request.FILES or None, initial=request.GET or None)
    if request.method == "POST" and form.is_valid():
        try:
            campaign = services.campaign_create(user=request.user, **form.service_kwargs())
        except ValidationError as exc:
            for m in exc.messages:
                form.add_error(None, m)
        else:
            if form.cleaned_data["open_now"]:
                services.campaign_status_set(campaign, Campaign.Status.OPEN)
            messages.success(request, f"Campaign {campaign.name} created with {campaign.items.count()} items.")
            return redirect("annotation:dashboard", slug=campaign.name)
    return render(request, "annotation/campaign_form.html", {"form": form}, status=400 if form.errors else 200)


def _verification(campaign: Campaign, progress: CampaignProgress) -> dict[str, Any]:
    """The verification loop's part of an MCQA dashboard: settlement, the rule, the annotators'
    estimates, the models' votes against the majority, and what a verified set would keep."""
    fit = campaign.annotator_model or {}
    settled = progress["settled"]
    spent_settled = answers_on_settled(campaign)
    return {
        "rule": NEEDS_RULE if campaign.settlement_rule == "needs" else RULE,
        "agreement_rule": AGREEMENT_RULE,
        "label_rules": Campaign._meta.get_field("label_rule").choices,
        "fit": fit,
        "quality": campaign_quality_rows(campaign),
        "models": model_agreement(campaign),
        "answers_per_settled": f"{spent_settled / settled:.2f}" if settled else "—",
        "preview": preview_text(campaign, verified_set_preview(campaign)),
        "preview_all": preview_text(campaign, verified_set_preview(campaign, include_unsettled=True)),
        "review": review_progress(campaign),
        "review_stage": review_stage(campaign),
    }


def _fmt(x: float | None, digits: int = 3) -> str:
    return "—" if x is None or not np.isfinite(x) else f"{x:.{digits}f}"


def _summary_answer(kind: str, answer: dict[str, Any]) -> str:
    if kind == Campaign.Kind.SURVEY:
        s = f"agree {'yes' if answer.get('agree') else 'no'} · most agree {'yes' if answer.get('predict') else 'no'}"
        return s + (f" · common {'yes' if answer.get('common') else 'no'}" if "common" in answer else "")
    if kind == Campaign.Kind.RICA:
        return "original follows commonsense" if answer.get("valid") else "flipped follows commonsense"
    if kind == Campaign.Kind.GENERATION:
        return JUDGEMENT_NAMES.get(str(answer.get("judgement")), "?")
    if kind == Campaign.Kind.REVIEW:
        v = answer.get("verdict")
        return f"the one defensible answer: {int(answer.get('pick', 0)) + 1}" if v == "one" else f"review: {v}"
    if answer.get("bad_context"):
        return "not well formed"
    picked = answer.get("plausible", [])
    return "plausible: " + ", ".join(str(i + 1) for i in picked) if picked else "no answers are correct"


@role_required(RESEARCHER)
def dashboard(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = _campaign(slug)
    m = campaign_matrices(campaign)
    agr = campaign_agreement(campaign, m)
    labels = {r.item_id: r for r in campaign_item_labels(campaign)}
    figures: dict[str, Any] = {
        "agreement": charts.agreement_histogram(list(agr.per_item.values()), campaign.agreement_threshold)
    }
    counts = regular_answer_counts(campaign)
    figures["answers"] = charts.answers_per_item(counts, campaign.redundancy)
    nww_ctx = nww_short = None
    personal = campaign_export_allowed(campaign, request.user)
    res = campaign_nww(campaign, m, n_boot=500)
    if res is not None and len(res.rater_ids) < NWW_MIN_RATERS:  # one rater: no 1.000 [1.000–1.000]
        answered = int(np.count_nonzero(~np.isnan(m.primary)))
        nww_short = {"raters": len(res.rater_ids), "need": NWW_MIN_RATERS, "answers": answered, "items": len(m.items)}
        res = None
    if res is not None:
        names = rater_names(campaign, [int(r) for r in res.rater_ids], personal=personal)
        rs = res.raters
        figures["annotators"] = charts.annotator_scatter(
            rs.consensus.tolist(), rs.awareness.tolist(), [names.get(r, str(r)) for r in res.rater_ids]
        )
        figures["annotator_m"] = charts.commonsensicality_histogram(
            rs.commonsensicality.tolist(), "Annotators' commonsensicality M (NWW Fig. 2A)", "annotators"
        )
        figures["statement_m"] = charts.commonsensicality_histogram(
            res.statements.commonsensicality.tolist(), "Statements' commonsensicality m", "statements"
        )
        nww_ctx = {
            k: {"value": _fmt(v["value"]), "low": _fmt(v["low"]), "high": _fmt(v["high"]), "n": v["n"]}
            for k, v in res.summary.items()
        }
    items = answered_items(campaign, 200)
    item_rows = [
        {
            "item": i,
            "agreement": _fmt(agr.per_item.get(i.pk)),
            "label": labels[i.pk].label.label if i.pk in labels else None,
            "below": labels[i.pk].below_threshold if i.pk in labels else False,
        }
        for i in items
    ]
    latest = list(recent_responses(campaign, 50))
    who = rater_names(campaign, sorted({r.user_id for r in latest}), personal=personal)
    recent = [{"r": r, "who": who[r.user_id], "summary": _summary_answer(campaign.kind, r.answer)} for r in latest]
    progress = campaign_progress(campaign)
    verification = _verification(campaign, progress) if campaign.adaptive else None
    ctx = {
        "campaign": campaign,
        "verification": verification,
        "progress": progress,
        "agr": agr,
        "nww": nww_ctx,
        "nww_short": nww_short,
        "numbers": {"pairwise": _fmt(agr.pairwise), "fleiss": _fmt(agr.fleiss), "krippendorff": _fmt(agr.krippendorff)},
        "figures": figures,
        "item_rows": item_rows,
        "recent": recent,
        "is_admin": has_role(request.user, ADMIN),
        "can_export": personal,
        "formats": list(exports.FORMATS),
    }
    if campaign.kind == Campaign.Kind.GENERATION:
        ctx["judgements"] = [
            {
                "group": r.group,
                "n": r.n,
                "undecided": r.undecided,
                "cells": [(r.counts[j], r.shares[j]) for j in JUDGEMENTS],
            }
            for r in generation_judgements(campaign)
        ]
        ctx["judgement_names"] = [JUDGEMENT_NAMES[j] for j in JUDGEMENTS]
    return render(request, "annotation/dashboard.html", ctx)


@require_POST
@role_required(RESEARCHER)
def campaign_status(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = _campaign(slug)
    status = request.POST.get("status", "")
    if status == Campaign.Status.CLOSED and campaign.is_open and request.POST.get("confirm") != "yes":
        progress = campaign_progress(campaign)
        ctx = {
            "title": f"Close campaign {campaign.title}?",
            "lines": [
                f"{progress['complete']:,} of {progress['items']:,} items have all their answers. Annotators "
                "can no longer answer; an answer on screen now is refused and they are told the campaign is closed.",
                "You can open it again from the dashboard.",
            ],
            "action": request.path,
            "fields": [("status", status)],
            "confirm_label": "Close the campaign",
            "back": reverse("annotation:dashboard", args=[campaign.name]),
            "back_label": "Keep it open",
        }
        return render(request, "confirm.html", ctx)
    try:
        services.campaign_status_set(campaign, status)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    return redirect("annotation:dashboard", slug=slug)


@role_required(RESEARCHER)
def adjudication_queue(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = _campaign(slug)
    queue = adjudication_rows(campaign)[:200]  # labels are current: the writes keep them so
    decided = adjudicated_labels(campaign, 50)
    return render(request, "annotation/adjudication.html", {"campaign": campaign, "queue": queue, "decided": decided})


@role_required(RESEARCHER)
def adjudicate(request: Request, slug: str, item_id: int) -> HttpResponse:
    campaign = _campaign(slug)
    item = get_object_or_404(regular_items(campaign), pk=item_id)
    form = AdjudicationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            label = answer_from_post(campaign, item, request.POST)
            services.adjudication_record(item, label=label, reason=form.cleaned_data["reason"], user=request.user)
        except ValidationError as exc:
            for m in exc.messages:
                form.add_error(None, m)
        else:
            messages.success(request, f"Decision recorded for item {item.key}.")
            return redirect("annotation:adjudication", slug=slug)
    answers = list(item_responses(item))
    personal = campaign_export_allowed(campaign, request.user)
    who = rater_names(campaign, sorted({r.user_id for r in answers}), personal=personal)
    responses = [{"r": r, "who": who[r.user_id], "summary": _summary_answer(campaign.kind, r.answer)} for r in answers]
    final = final_label_of(item)
    options = option_rows(item.payload.get("options", []))
    return render(
        request,
        "annotation/adjudicate.html",
        {"campaign": campaign, "item": item, "form": form, "final": final, "responses": responses, "options": options},
        status=400 if form.errors else 200,
    )


@accepts_uploads
@role_required(RESEARCHER)
def import_ratings(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = _campaign(slug)
    form = RatingsImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            result = ratings_import(
                campaign, form.cleaned_data["file"].read(), create_raters=form.cleaned_data["create_raters"]
            )
        except RatingsImportRefused as exc:
            for e in exc.errors:
                form.add_error(None, e)
            form.add_error(None, "Nothing was stored.")
        else:
            messages.success(
                request,
                f"Imported {result.responses} ratings from {result.raters} raters "
                f"({result.created_raters} new rater accounts).",
            )
            return redirect("annotation:dashboard", slug=slug)
    return render(
        request, "annotation/import.html", {"campaign": campaign, "form": form}, status=400 if form.errors else 200
    )


@role_required(RESEARCHER)
def export(request: HttpRequest, slug: str, fmt: str) -> HttpResponse:
    campaign = _campaign(slug)
    if not campaign_export_allowed(campaign, request.user):
        raise PermissionDenied(REFUSAL)
    if fmt not in exports.FORMATS:
        raise Http404(f"unknown export format {fmt}")
    body = exports.campaign_export(campaign, fmt)
    resp = HttpResponse(body, content_type=exports.FORMATS[fmt])
    resp["Content-Disposition"] = f'attachment; filename="{campaign.name}.{fmt}"'
    return resp
