from django.apps import AppConfig


class RunsConfig(AppConfig):
    name = "runs"

    def ready(self) -> None:
        from runs.selectors.samples import run_summary_warm
        from runs.signals import run_finished

        # a finished run's sample viewer reads its counts from the run (Run.sample_summary): the worker
        # that ran it computes them as it ends, not the first viewer
        run_finished.connect(run_summary_warm, dispatch_uid="runs-sample-summary-warm")
