from django.http import HttpRequest

from .roles import ADMIN, ANNOTATOR, RESEARCHER, has_role, user_role


def roles(request: HttpRequest) -> dict[str, object]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"role": None, "is_annotator": False, "is_researcher": False, "is_admin": False}
    return {
        "role": user_role(user),
        "is_annotator": has_role(user, ANNOTATOR),
        "is_researcher": has_role(user, RESEARCHER),
        "is_admin": has_role(user, ADMIN),
    }
