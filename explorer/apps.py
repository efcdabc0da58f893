from django.apps import AppConfig


class ExplorerConfig(AppConfig):
    name = "explorer"

    def ready(self) -> None:
        from runs.signals import housekeeping_tick, run_finished

        from . import signals
        from .selectors.run_aggregates import code_version
        from .services import run_aggregates_warm
        from .tasks import housekeeping_share

        code_version()  # the code this process runs, before a deploy may replace its files

        run_finished.connect(run_aggregates_warm, dispatch_uid="explorer-run-aggregates-warm")
        housekeeping_tick.connect(housekeeping_share, dispatch_uid="explorer-housekeeping-share")
        signals.connect()
