from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"

    def ready(self) -> None:
        from annotation.selectors.publication import question_set_human_part
        from annotation.selectors.verdicts import question_set_human_quality
        from knowledge.publication import publication_contributor_register
        from knowledge.quality import human_reporter_register

        human_reporter_register(question_set_human_quality)
        publication_contributor_register(question_set_human_part)
