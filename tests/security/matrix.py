"""The permission matrix: for every URL pattern of ``cocoweb.urls`` (key = ``ResolverMatch.route``)
the status each of anonymous / annotator / researcher / admin gets, per HTTP method probed.

Roles (accounts/roles.py): annotators see only the annotation area; researchers also build sets,
run models, explore and export their own campaigns; admins also manage people (Django admin) and export any campaign.

Expected values: an HTTP status, ``LOGIN`` (302 to cocoweb's log-in page with ``next``),
``ADMIN_LOGIN`` (302 to the admin's log-in page: Django's admin refuses non-staff that way) or
``To(prefix)`` (302 elsewhere; ``{param}`` is filled from the URL's parameters). POST probes send
an empty form (a JSON ``{}`` to the API): they test who may post, not what a valid post does.

A new URL pattern without an entry here fails ``test_every_url_pattern_is_classified``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.security.conftest import World

LOGIN, ADMIN_LOGIN = "login", "admin-login"


@dataclass(frozen=True)
class To:
    prefix: str  # Location must start with this; "{run_id}" etc. come from the URL's parameters


Expected = int | str | To
ByRole = dict[str, Expected]


def R(  # noqa: N802
    anonymous: Expected, annotator: Expected, researcher: Expected, admin: Expected, participant: Expected | None = None
) -> ByRole:
    """``participant`` (a crowd study link's signed-in user, no role) defaults to what the
    annotator gets where everyone below a researcher gets the same or the annotator is refused
    anyway, else 403: the annotator's pages are not theirs."""
    if participant is None:
        participant = annotator if annotator in (anonymous, 403, ADMIN_LOGIN) else 403
    return {
        "anonymous": anonymous,
        "annotator": annotator,
        "researcher": researcher,
        "admin": admin,
        "participant": participant,
    }


@dataclass(frozen=True)
class Entry:
    methods: dict[str, ByRole]
    kwargs: Callable[[World], dict[str, Any]] | None = None  # path parameters (else DEFAULT_KWARGS)
    url: Callable[[World], str] | None = None  # explicit URL (unnamed patterns with parameters)
    query: str = ""
    api: bool = False  # POST a JSON body
    notes: str = field(default="", compare=False)


def E(get: ByRole | None = None, post: ByRole | None = None, **kw: Any) -> Entry:  # noqa: N802
    methods = {m: v for m, v in (("GET", get), ("POST", post)) if v is not None}
    return Entry(methods, **kw)


def default_kwargs(w: World) -> dict[str, Any]:
    return {
        "slug": w.plain.name,
        "item_id": w.plain_item.pk,
        "run_id": w.run.pk,
        "node_id": w.node.pk,
        "question_id": w.question.pk,
        "fmt": "jsonl",
        "job_id": w.build_job.pk,
        "uid": w.participant_item.uid,
    }


ALL_200 = R(200, 200, 200, 200)
ALL_405 = R(405, 405, 405, 405)
SIGNED_IN = R(LOGIN, 200, 200, 200)  # any role (annotator and up)
SIGNED_IN_ALL = R(LOGIN, 200, 200, 200, 200)  # anyone signed in, crowd participants too
RESEARCHER = R(LOGIN, 403, 200, 200)
ADMIN_ONLY = R(LOGIN, 403, 403, 200)
DJANGO_ADMIN = R(ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, 200)  # only staff (the admin role) get in
FORM_AGAIN = R(LOGIN, 403, 200, 200)  # a researcher form posted empty is shown again, blank
API_ANNOTATOR = R(401, 200, 200, 200)
API_RESEARCHER = R(401, 403, 200, 200)
API_ADMIN = R(401, 403, 403, 200)
API_POST_ONLY = R(401, 405, 405, 405)  # DRF authenticates before it looks at the method

WORK = To("/annotation/c/{slug}/")
DASHBOARD = To("/annotation/c/{slug}/dashboard/")
PARTICIPANTS = To("/annotation/c/{slug}/participants/")
RUN = To("/runs/{run_id}/")
JOB = To("/knowledge/build/jobs/{job_id}/")
QSET = To("/knowledge/question-sets/{name}/")


CROWD = R(403, 403, 403, 403, 200)
CROWD_AT_ITEMS = R(403, 403, 403, 403, To("/join/{slug}/items/"))  # other stages send them to their items


def _api_item(w: World) -> dict[str, Any]:
    return {"item_id": w.plain_item.uid}  # the API's item ids are opaque


def _work_item(w: World) -> dict[str, Any]:
    return {"slug": w.plain.name, "uid": w.plain_item.uid}  # the work page's item ids are opaque too


def _crowd(w: World) -> dict[str, Any]:
    return {"slug": w.survey.name}


def _person_action(w: World) -> dict[str, Any]:
    # a harmless action on the second annotator's survey membership (unblocking someone not blocked)
    return {"slug": w.survey.name, "user_id": w.users["annotator2"].pk, "action": "unblock"}


_BAD_LINK = {"uidb64": "MQ", "token": "not-a-token"}
ALL_200_P = R(200, 200, 200, 200, 200)
PEOPLE_ACTION = E(get=ALL_405, post=R(LOGIN, 403, 403, 404), kwargs=lambda w: {"pk": 2**31 - 1})


def _admin_obj(model: str, spare: bool = False) -> Callable[[World], dict[str, Any]]:
    """An admin page's object: the annotator's, or a disposable one for delete pages."""

    def kw(w: World) -> dict[str, Any]:
        user = w.spare_user if spare else w.users["annotator"]
        group = w.spare_group if spare else w.users["annotator"].groups.get()
        obj = {"user": user.pk, "group": group.pk}[model]
        return {"object_id": obj, "id": obj}

    return kw


def _admin_model(model: str) -> dict[str, Entry]:
    base = f"admin/auth/{model}/"
    obj = _admin_obj(model)
    out = {
        base: E(get=DJANGO_ADMIN),
        base + "add/": E(get=DJANGO_ADMIN, post=DJANGO_ADMIN),  # posted empty: the form again, 200
        base + "<path:object_id>/history/": E(get=DJANGO_ADMIN, kwargs=obj),
        base + "<path:object_id>/delete/": E(
            get=DJANGO_ADMIN,
            post=DJANGO_ADMIN,  # empty post: asks again
            kwargs=_admin_obj(model, spare=True),
        ),
        base + "<path:object_id>/change/": E(get=DJANGO_ADMIN, post=DJANGO_ADMIN, kwargs=obj),
        base + "<path:object_id>/": E(
            get=R(ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, To(f"/{base}")),
            kwargs=obj,
            url=lambda w: f"/{base}{obj(w)['object_id']}/",
        ),
    }
    return out


def _admin_readonly_model(app: str, model: str, pk: Callable[[World], int]) -> dict[str, Entry]:
    """A view-only admin model (runs, build jobs): the admin role may look, nobody may add,
    change or delete."""
    base = f"admin/{app}/{model}/"
    obj: Callable[[World], dict[str, Any]] = lambda w: {"object_id": pk(w)}  # noqa: E731
    no = R(ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, 403)
    return {
        base: E(get=DJANGO_ADMIN),
        base + "add/": E(get=no, post=no),
        base + "<path:object_id>/history/": E(get=DJANGO_ADMIN, kwargs=obj),
        base + "<path:object_id>/delete/": E(get=no, post=no, kwargs=obj),
        base + "<path:object_id>/change/": E(get=DJANGO_ADMIN, post=no, kwargs=obj),
        base + "<path:object_id>/": E(
            get=R(ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, To(f"/{base}")),
            kwargs=obj,
            url=lambda w: f"/{base}{pk(w)}/",
        ),
    }


def _run_shard_pk(w: World) -> int:
    from runs.models import RunShard

    shard, _ = RunShard.objects.get_or_create(run=w.run, index=0, defaults={"first": 0, "last": 0, "items": 1})
    return int(shard.pk)


def _api_token_pk(w: World) -> int:
    from accounts.models import ApiToken

    return int(ApiToken.objects.get(user=w.users["annotator"]).pk)


ANNOTATION_ADMIN_MODELS = ("campaign", "item", "membership", "assignment", "response", "adjudication", "finallabel")
ADMIN_403 = R(ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, 403)  # admin pages of read-only models: no add/change/delete


def _annotation_obj(model: str) -> Callable[[World], dict[str, Any]]:
    """A real row of an annotation model for its admin pages (an adjudication is recorded through
    the service the first time one is needed: the world has none)."""

    def kw(w: World) -> dict[str, Any]:
        from annotation import models as am
        from annotation.services.campaigns import adjudication_record

        cls = {
            "campaign": am.Campaign,
            "item": am.Item,
            "membership": am.Membership,
            "assignment": am.Assignment,
            "response": am.Response,
            "adjudication": am.Adjudication,
            "finallabel": am.FinalLabel,
        }[model]
        row = cls.objects.order_by("pk").first()
        if row is None and model == "adjudication":
            row = adjudication_record(
                w.plain_item, label={"plausible": [1]}, reason="matrix probe", user=w.users["researcher"]
            )
        assert row is not None, model
        return {"object_id": row.pk}

    return kw


def _annotation_admin(model: str) -> dict[str, Entry]:
    """Django admin pages of an annotation model: admins view; only a campaign's title and
    instructions change (a posted-empty change form comes back with its errors); no add or delete."""
    base = f"admin/annotation/{model}/"
    obj = _annotation_obj(model)
    return {
        base: E(get=DJANGO_ADMIN),
        base + "add/": E(get=ADMIN_403, post=ADMIN_403),
        base + "<path:object_id>/history/": E(get=DJANGO_ADMIN, kwargs=obj),
        base + "<path:object_id>/delete/": E(get=ADMIN_403, post=ADMIN_403, kwargs=obj),
        base + "<path:object_id>/change/": E(
            get=DJANGO_ADMIN, post=DJANGO_ADMIN if model == "campaign" else ADMIN_403, kwargs=obj
        ),
        base + "<path:object_id>/": E(
            get=R(ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, To(f"/{base}")),
            kwargs=obj,
            url=lambda w: f"/{base}{obj(w)['object_id']}/",
        ),
    }


MATRIX: dict[str, Entry] = {
    # cocoweb/urls.py
    "": E(get=R(LOGIN, To("/annotation/"), 200, 200, To("/annotation/"))),
    "accounts/login/": E(get=ALL_200, post=ALL_200),  # posted empty: the form with errors
    "accounts/logout/": E(
        get=ALL_405,
        post=R(To("/accounts/login/"), To("/accounts/login/"), To("/accounts/login/"), To("/accounts/login/")),
    ),
    # A participant has no usable password: the form cannot change it (the old one never matches).
    "accounts/password_change/": E(get=SIGNED_IN_ALL, post=SIGNED_IN_ALL),  # posted empty: the form with errors
    "accounts/password_change/done/": E(get=SIGNED_IN_ALL),
    "accounts/api-token/": E(get=SIGNED_IN, post=SIGNED_IN),  # a post makes a new token
    # an admin's one-time set-password link: anyone holding it; a bad token: the "no longer works" page
    "accounts/set-password/<uidb64>/<token>/": E(get=ALL_200_P, post=ALL_200_P, kwargs=lambda w: _BAD_LINK),
    # the People page: admins only; the actions are posts about a person (here one that does not exist)
    "people/": E(get=ADMIN_ONLY),
    "people/invite/": E(get=ALL_405, post=R(LOGIN, 403, 403, 400)),  # posted empty: the form again, 400
    **{f"people/<int:pk>/{a}/": PEOPLE_ACTION for a in ("role", "active", "token/revoke", "password-link")},
    "api/schema/": E(get=R(401, 200, 200, 200, 403)),  # the API's description: people with a role (issue 31)
    "api/docs/": E(get=R(401, 200, 200, 200, 403)),
    # Django's admin (people, groups, API tokens). admin/login/ is cocoweb's throttled log-in view.
    "admin/login/": E(get=R(200, 403, 403, 200), post=ALL_200),  # signed in, not staff: "no access" (issue 14)
    "favicon.ico": E(get=R(302, 302, 302, 302)),  # to the static icon
    "admin/": E(get=DJANGO_ADMIN),
    "admin/logout/": E(get=R(To("/admin/"), To("/admin/"), To("/admin/"), 405)),  # log-out is a POST
    "admin/password_change/": E(get=DJANGO_ADMIN),
    "admin/password_change/done/": E(get=DJANGO_ADMIN),
    "admin/autocomplete/": E(get=R(ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, 403)),  # no field to complete
    "admin/jsi18n/": E(get=DJANGO_ADMIN),
    "admin/r/<path:content_type_id>/<path:object_id>/": E(
        get=R(ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, 404),  # users have no public page
        kwargs=lambda w: {"content_type_id": _user_ct(), "object_id": w.users["annotator"].pk},
    ),
    **_admin_model("group"),
    **_admin_model("user"),
    "admin/auth/user/<id>/password/": E(get=DJANGO_ADMIN, post=DJANGO_ADMIN, kwargs=_admin_obj("user")),
    **_admin_readonly_model("accounts", "apitoken", lambda w: _api_token_pk(w)),
    **_admin_readonly_model("runs", "run", lambda w: w.run.pk),
    **_admin_readonly_model("runs", "runshard", _run_shard_pk),
    **_admin_readonly_model("knowledge", "buildjob", lambda w: w.build_job.pk),
    "admin/(?P<app_label>auth|accounts|knowledge|runs|annotation)/$": E(
        get=DJANGO_ADMIN, kwargs=lambda w: {"app_label": "auth"}
    ),
    **{k: v for m in ANNOTATION_ADMIN_MODELS for k, v in _annotation_admin(m).items()},
    "admin/(?P<url>.*)$": E(get=R(ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, 404), url=lambda w: "/admin/no-such-page/"),
    # knowledge
    "knowledge/import/": E(get=RESEARCHER, post=FORM_AGAIN),
    "knowledge/graphs/<storedname:name>/": E(get=RESEARCHER, kwargs=lambda w: {"name": w.graph.name}),
    "knowledge/question-sets/<storedname:name>/": E(get=RESEARCHER, kwargs=lambda w: {"name": w.qset.name}),
    "knowledge/question-sets/<storedname:name>/export.<str:fmt>": E(
        get=RESEARCHER, kwargs=lambda w: {"name": w.qset.name, "fmt": "csv"}
    ),
    "knowledge/question-sets/<storedname:name>/rename/": E(  # posted empty: refused, back to the set's page
        get=R(LOGIN, 403, 405, 405), post=R(LOGIN, 403, QSET, QSET), kwargs=lambda w: {"name": w.qset.name}
    ),
    "knowledge/question-sets/<storedname:name>/delete/": E(  # the world's runs use the set: refused, back to it
        get=RESEARCHER, post=R(LOGIN, 403, QSET, QSET), kwargs=lambda w: {"name": w.qset.name}
    ),
    "knowledge/statement-sets/<storedname:name>/": E(get=RESEARCHER, kwargs=lambda w: {"name": w.sset.name}),
    "knowledge/build/questions/": E(get=RESEARCHER, post=R(LOGIN, 403, 400, 400)),  # posted empty: 400, errors
    "knowledge/build/coco/": E(get=RESEARCHER, post=R(LOGIN, 403, 400, 400)),
    "knowledge/build/rica/": E(get=RESEARCHER, post=R(LOGIN, 403, 400, 400)),
    "knowledge/build/jobs/": E(get=RESEARCHER),
    "knowledge/build/jobs/<int:job_id>/": E(get=RESEARCHER),
    "knowledge/build/jobs/<int:job_id>/progress/": E(get=R(LOGIN, 403, JOB, JOB)),  # the box alone is for htmx only
    "knowledge/build/jobs/<int:job_id>/requeue/": E(get=R(LOGIN, 403, 405, 405), post=R(LOGIN, 403, JOB, JOB)),
    # annotation: the annotator's area
    "annotation/": E(get=SIGNED_IN),
    "annotation/c/<slug:slug>/": E(get=SIGNED_IN),
    "annotation/c/<slug:slug>/item/": E(get=R(LOGIN, WORK, WORK, WORK)),  # the box alone is for htmx only
    "annotation/c/<slug:slug>/items/<str:uid>/submit/": E(
        get=ALL_405, post=R(LOGIN, WORK, WORK, WORK), kwargs=_work_item
    ),
    "annotation/c/<slug:slug>/items/<str:uid>/skip/": E(
        get=ALL_405, post=R(LOGIN, WORK, WORK, WORK), kwargs=_work_item
    ),
    "annotation/c/<slug:slug>/undo/": E(get=ALL_405, post=R(LOGIN, WORK, WORK, WORK)),
    # crowd study links: only the participant the link signed in, for their own campaign (at the items)
    "join/<slug:slug>/": E(get=R(400, 400, 400, 400, 400), kwargs=_crowd),  # a link without a participant id
    "join/<slug:slug>/consent/": E(get=CROWD_AT_ITEMS, post=CROWD_AT_ITEMS, kwargs=_crowd),
    "join/<slug:slug>/instructions/": E(get=CROWD_AT_ITEMS, post=CROWD_AT_ITEMS, kwargs=_crowd),
    "join/<slug:slug>/about-you/": E(get=CROWD_AT_ITEMS, post=CROWD_AT_ITEMS, kwargs=_crowd),
    "join/<slug:slug>/items/": E(get=CROWD, kwargs=_crowd),
    "join/<slug:slug>/items/<str:uid>/submit/": E(get=ALL_405, post=CROWD, kwargs=_crowd),  # empty: the item again
    "join/<slug:slug>/items/<str:uid>/skip/": E(get=ALL_405, post=CROWD_AT_ITEMS, kwargs=_crowd),
    "join/<slug:slug>/qualification/retry/": E(get=ALL_405, post=CROWD_AT_ITEMS, kwargs=_crowd),
    "join/<slug:slug>/done/": E(get=CROWD_AT_ITEMS, kwargs=_crowd),
    "join/(?P<rest>.+/)$": E(get=R(404, 404, 404, 404, 404), url=lambda w: "/join/no/such/page/"),  # a cut link
    # annotation: researchers manage campaigns and export their own; admins export any
    "annotation/new/": E(get=RESEARCHER, post=FORM_AGAIN),
    "annotation/c/<slug:slug>/dashboard/": E(get=RESEARCHER),
    "annotation/c/<slug:slug>/status/": E(get=ALL_405, post=R(LOGIN, 403, DASHBOARD, DASHBOARD)),
    "annotation/c/<slug:slug>/verified-set/": E(get=ALL_405, post=R(LOGIN, 403, DASHBOARD, DASHBOARD)),  # no name
    "annotation/c/<slug:slug>/quality/": E(get=ALL_405, post=R(LOGIN, 403, DASHBOARD, DASHBOARD)),
    "annotation/c/<slug:slug>/label-rule/": E(get=ALL_405, post=R(LOGIN, 403, DASHBOARD, DASHBOARD)),
    "annotation/c/<slug:slug>/adjudication/": E(get=RESEARCHER),
    "annotation/c/<slug:slug>/adjudication/<int:item_id>/": E(get=RESEARCHER, post=FORM_AGAIN),
    "annotation/c/<slug:slug>/import/": E(get=RESEARCHER, post=FORM_AGAIN),
    "annotation/c/<slug:slug>/export.<str:fmt>": E(get=RESEARCHER),  # the world's researcher created it
    # crowd studies: researchers follow participants and download them for payment
    "annotation/c/<slug:slug>/participants/": E(get=RESEARCHER, kwargs=_crowd),
    "annotation/c/<slug:slug>/participants/live/": E(get=R(LOGIN, 403, PARTICIPANTS, PARTICIPANTS), kwargs=_crowd),
    "annotation/c/<slug:slug>/participants.csv": E(get=RESEARCHER, kwargs=_crowd),
    "annotation/c/<slug:slug>/study/": E(get=ALL_405, post=R(LOGIN, 403, PARTICIPANTS, PARTICIPANTS), kwargs=_crowd),
    "annotation/c/<slug:slug>/people/<int:user_id>/<slug:action>/": E(
        get=ALL_405, post=R(LOGIN, 403, PARTICIPANTS, PARTICIPANTS), kwargs=_person_action
    ),
    # runs (model predictions: researchers only)
    "runs/": E(get=RESEARCHER),
    "runs/new/": E(get=RESEARCHER, post=R(LOGIN, 403, 400, 400)),  # posted empty: 400 with the errors
    "runs/models/": E(get=RESEARCHER),
    "runs/compare/": E(get=RESEARCHER, query="?runs={run_id}&runs={run2_id}"),
    "runs/<int:run_id>/": E(get=RESEARCHER),
    "runs/<int:run_id>/samples/": E(get=RESEARCHER),
    "runs/<int:run_id>/errors/": E(get=RESEARCHER),  # CoCo error categories: the reviewer's page
    "runs/<int:run_id>/predictions/<int:prediction_id>/error-category/": E(
        get=R(LOGIN, 403, 405, 405),
        post=R(LOGIN, 403, To("/explorer/runs/{run_id}/"), To("/explorer/runs/{run_id}/")),  # empty: override cleared
        kwargs=lambda w: {"run_id": w.prediction.run_id, "prediction_id": w.prediction.pk},
    ),
    "runs/<int:run_id>/samples/live/": E(get=RESEARCHER),
    "runs/<int:run_id>/progress/": E(get=R(LOGIN, 403, RUN, RUN)),  # the box alone is for htmx only
    "runs/<int:run_id>/cancel/": E(get=R(LOGIN, 403, 405, 405), post=R(LOGIN, 403, RUN, RUN)),
    "runs/<int:run_id>/rerun/": E(get=R(LOGIN, 403, 405, 405), post=R(LOGIN, 403, To("/runs/"), To("/runs/"))),
    "runs/<int:run_id>/predictions.<str:fmt>": E(get=RESEARCHER),
    "runs/<int:run_id>/metrics.json": E(get=RESEARCHER),
    # explorer (graphs, questions, model errors: researchers only)
    "explorer/": E(get=RESEARCHER),
    "explorer/graphs/<storedname:name>/": E(get=RESEARCHER, kwargs=lambda w: {"name": w.graph.name}),
    "explorer/graphs/<storedname:name>/search/": E(
        get=RESEARCHER, kwargs=lambda w: {"name": w.graph.name}, query="?q=thing"
    ),
    "explorer/graphs/<storedname:name>/nodes/<int:node_id>/": E(
        get=RESEARCHER, kwargs=lambda w: {"name": w.graph.name, "node_id": w.node.pk}
    ),
    "explorer/questions/": E(get=RESEARCHER),
    "explorer/questions/<int:question_id>/": E(get=RESEARCHER),
    "explorer/runs/<int:run_id>/": E(get=RESEARCHER),
    "explorer/runs/<int:run_id>/items/": E(get=RESEARCHER),
    "explorer/compare/": E(get=RESEARCHER, query="?run={run_id}&run={run2_id}"),
    # REST API (token or session): annotators answer; researchers read agreement and export their own campaigns
    "api/annotation/campaigns/": E(get=API_ANNOTATOR, api=True),
    "api/annotation/campaigns/<slug:slug>/": E(get=API_ANNOTATOR, api=True),
    "api/annotation/campaigns/<slug:slug>/next/": E(get=API_POST_ONLY, post=API_ANNOTATOR, api=True),
    "api/annotation/campaigns/<slug:slug>/items/<str:item_id>/response/": E(
        get=API_POST_ONLY, post=R(401, 400, 400, 400), api=True, kwargs=_api_item
    ),  # {} is not an answer
    "api/annotation/campaigns/<slug:slug>/items/<str:item_id>/skip/": E(
        get=API_POST_ONLY, post=API_ANNOTATOR, api=True, kwargs=_api_item
    ),
    "api/annotation/campaigns/<slug:slug>/agreement/": E(get=API_RESEARCHER, api=True),
    "api/annotation/campaigns/<slug:slug>/export/": E(get=API_RESEARCHER, api=True),  # creator or admin
    # REST API of question sets and runs: researchers read, launch and cancel
    "api/knowledge/question-sets/": E(get=API_RESEARCHER, api=True),
    "api/knowledge/question-sets/<storedname:name>/": E(
        get=API_RESEARCHER, api=True, kwargs=lambda w: {"name": w.qset.name}
    ),
    "api/knowledge/question-sets/<storedname:name>/questions/": E(
        get=API_RESEARCHER, api=True, kwargs=lambda w: {"name": w.qset.name}
    ),
    "api/runs/": E(get=API_RESEARCHER, post=R(401, 403, 400, 400), api=True),  # {} names no set
    "api/runs/<int:run_id>/": E(get=API_RESEARCHER, api=True),
    "api/runs/<int:run_id>/cancel/": E(get=R(401, 403, 405, 405), post=R(401, 403, 409, 409), api=True),  # run done
    "api/runs/<int:run_id>/predictions/": E(get=API_RESEARCHER, api=True),
}


def _user_ct() -> int:
    from django.contrib.auth import get_user_model
    from django.contrib.contenttypes.models import ContentType

    return ContentType.objects.get_for_model(get_user_model()).pk
