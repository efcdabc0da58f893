"""Types for the people who use cocoweb. The user model is Django's own ``auth.User``."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User

# ``request.user``: a signed-in person or the anonymous visitor.
Visitor = User | AnonymousUser

__all__ = ["User", "Visitor"]
