from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"

    def ready(self) -> None:
        from annotation.selectors.verdicts import question_set_human_quality
        from knowledge.services.set_quality import human_reporter_register

        human_reporter_register(question_set_human_quality)
