from django.apps import AppConfig


class ExplorerConfig(AppConfig):
    name = "explorer"

    def ready(self) -> None:
        from runs.signals import run_finished

        from . import signals
        from .services import run_aggregates_warm

        run_finished.connect(run_aggregates_warm, dispatch_uid="explorer-run-aggregates-warm")
        signals.connect()
