from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"

    def ready(self) -> None:
        from knowledge.quality import human_reporter_register

        from .selectors import question_set_human_quality

        human_reporter_register(question_set_human_quality)
