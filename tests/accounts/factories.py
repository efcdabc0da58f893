"""factory_boy factories for people: ``UserFactory(role="researcher")`` makes an account with that
role the way the app does (``accounts.services.user_create_with_role``: the role's group, synced
first), with the tests' shared password."""

from __future__ import annotations

from typing import Any

import factory
from django.conf import settings

from accounts.people import User
from accounts.roles import ANNOTATOR
from tests.conftest import PASSWORD


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = settings.AUTH_USER_MODEL

    username = factory.Sequence(lambda n: f"person-{n}")

    @classmethod
    def _create(cls, model_class: Any, *args: Any, role: str = ANNOTATOR, **kwargs: Any) -> User:
        from accounts.services import role_groups_sync, user_create_with_role

        role_groups_sync()
        user = user_create_with_role(kwargs.pop("username"), role, kwargs.pop("password", PASSWORD))
        if kwargs:
            model_class.objects.filter(pk=user.pk).update(**kwargs)
            user.refresh_from_db()
        return user
