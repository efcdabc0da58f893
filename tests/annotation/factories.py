"""factory_boy factories for annotation rows: campaigns, items, answers.

Factories write rows directly, for tests of reads (selectors, pages, exports). Tests of behaviour
the services own (campaign creation copies items from a set, the queue counts answers and keeps
slots) make their data through those services instead: ``campaign_create``, ``response_submit``."""

from __future__ import annotations

import factory

from annotation.models import Campaign, Item, Response
from tests.accounts.factories import UserFactory


class CampaignFactory(factory.django.DjangoModelFactory):
    """A survey campaign by default; ``CampaignFactory(kind=Campaign.Kind.MCQA, status=...)``."""

    class Meta:
        model = Campaign

    name = factory.Sequence(lambda n: f"campaign-{n}")
    title = factory.LazyAttribute(lambda o: f"Campaign {o.name}")
    kind = Campaign.Kind.SURVEY
    status = Campaign.Status.OPEN
    created_by = factory.SubFactory(UserFactory, role="researcher")


class ItemFactory(factory.django.DjangoModelFactory):
    """A regular survey item: a statement's text as the payload."""

    class Meta:
        model = Item

    campaign = factory.SubFactory(CampaignFactory)
    role = Item.Role.REGULAR
    position = factory.Sequence(lambda n: n)
    key = factory.LazyAttribute(lambda o: str(o.position))
    payload = factory.LazyAttribute(lambda o: {"text": f"Statement {o.position}"})


class ResponseFactory(factory.django.DjangoModelFactory):
    """One person's answer to an item (survey shape by default: agree, predict)."""

    class Meta:
        model = Response

    item = factory.SubFactory(ItemFactory)
    campaign = factory.SelfAttribute("item.campaign")
    user = factory.SubFactory(UserFactory)
    answer = factory.LazyFunction(lambda: {"agree": 1, "predict": 1})
    idempotency_key = factory.Sequence(lambda n: f"factory-{n}")
