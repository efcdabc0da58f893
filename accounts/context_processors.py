from django.http import HttpRequest

from .roles import ADMIN, ANNOTATOR, RESEARCHER, has_role, user_role


def is_crowd_participant(user: object) -> bool:
    """Whether a role-less user is a crowd participant: the crowd pages mark the user they admit
    (``_crowd_participant``); elsewhere (a staff page's 403) the participant row is asked for."""
    marked = getattr(user, "_crowd_participant", None)
    return bool(marked) if marked is not None else hasattr(user, "crowd_participant")


def roles(request: HttpRequest) -> dict[str, object]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"role": None, "is_annotator": False, "is_researcher": False, "is_admin": False, "is_participant": False}
    role = user_role(user)
    return {
        "role": role,
        # A participant's pages show no staff chrome: no account name, no staff links (issue 29 item 4).
        "is_participant": role is None and is_crowd_participant(user),
        "is_annotator": has_role(user, ANNOTATOR),
        "is_researcher": has_role(user, RESEARCHER),
        "is_admin": has_role(user, ADMIN),
    }
