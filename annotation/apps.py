from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"

    def ready(self) -> None:
        from knowledge.publication import publication_contributor_register
        from knowledge.quality import human_reporter_register

        from .publication import question_set_human_part
        from .selectors import question_set_human_quality

        human_reporter_register(question_set_human_quality)
        publication_contributor_register(question_set_human_part)
