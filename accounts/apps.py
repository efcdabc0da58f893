from django.apps import AppConfig
from django.db.models.signals import post_migrate


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "People and roles"

    def ready(self) -> None:
        from . import checks  # noqa: F401  (registers the deploy checks)
        from .backends import connect_invalidation
        from .services import role_groups_sync

        # After every migrate (apps may add models later), the role groups get their permissions.
        connect_invalidation()
        post_migrate.connect(lambda **kwargs: role_groups_sync(), dispatch_uid="accounts_role_groups", weak=False)
