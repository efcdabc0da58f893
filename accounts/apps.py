from django.apps import AppConfig
from django.conf import settings
from django.db.models.signals import post_migrate, post_save


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "People and roles"

    def ready(self) -> None:
        from . import checks  # noqa: F401  (registers the deploy checks)
        from .backends import connect_invalidation
        from .services import api_tokens_revoke_on_password_change, role_groups_sync

        # After every migrate (apps may add models later), the role groups get their permissions.
        connect_invalidation()
        post_migrate.connect(lambda **kwargs: role_groups_sync(), dispatch_uid="accounts_role_groups", weak=False)
        post_save.connect(
            api_tokens_revoke_on_password_change,
            sender=settings.AUTH_USER_MODEL,
            dispatch_uid="accounts_tokens_revoke_on_password_change",
        )
