"""`make demo`'s drive through the workbench, without a browser:

    python -m nlibuild.web.demo_drive STORE WRITER_LINK_FILE VALIDATOR_LINK_FILE

starts `nlibuild serve` on STORE (a free loopback port), opens the writer's personal link
(what `nlibuild serve invite` printed, in a file) and submits one answer for the first open
premise of their first open batch, opens the validator's link and votes on the first item
they have not labelled, prints what happened, and stops the server, whatever happens.

What is open is read from the store with the workbench's library (what the pages show);
what is written goes through the server's routes, with the CSRF token, as the pages send it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import urlsplit

from nlibuild.models import Label, Protocol
from nlibuild.store import Store
from nlibuild.web.drive import DriveError, WorkbenchClient, running_server
from nlibuild.workbench.relabelling import relabel_items, validator_batches
from nlibuild.workbench.writing import writer_batches, writing_task

# One answer a writer might give to any premise (OCNLI's MULTI protocols ask three per
# label; SINGLE one): general enough to fit, and sharing few words with any premise.
ANSWERS = {
    "zh": {
        Label.ENTAILMENT: [
            "这段话讲了一件具体的事情。",
            "文中提到了某些人或者某些事。",
            "这里的内容跟现实生活有关系。",
        ],
        Label.NEUTRAL: [
            "这件事情发生在去年的冬天。",
            "作者写下这些以后觉得非常满意。",
            "很多读者以前早就听说过这件事。",
        ],
        Label.CONTRADICTION: [
            "这段话其实什么也没有说。",
            "文中所有说法都是凭空编造的。",
            "这里讲的事情发生在遥远的外星球上。",
        ],
    },
    "en": {
        Label.ENTAILMENT: [
            "The text is about something specific.",
            "Somebody or something is mentioned here.",
            "The passage describes a situation.",
        ],
        Label.NEUTRAL: [
            "This happened during a cold winter.",
            "The writer was pleased with the result.",
            "Many readers had heard about it before.",
        ],
        Label.CONTRADICTION: [
            "The passage says nothing at all.",
            "Everything in it was invented on another planet.",
            "It describes events on a distant moon.",
        ],
    },
}


def link_on(base: str, link_file: Path) -> str:
    """The personal link in `link_file`, pointed at the server just started."""
    return base + urlsplit(link_file.read_text(encoding="utf-8").strip()).path


def writers_open_premise(db: Path, writer: str) -> tuple[str, str, Protocol, str]:
    """(batch, premise, protocol, language) of the writer's first unanswered premise."""
    with Store.open(db) as store:
        for batch in writer_batches(store, writer):
            task = writing_task(store, writer, batch.id)
            premise = next((p for p in task.premises if not p.answered), None)
            if premise is not None:
                return batch.id, premise.id, task.protocol, premise.lang
    raise DriveError(f"{writer} has no open premise: make a batch with `nlibuild elicit create`")


def validators_open_item(db: Path, validator: str) -> tuple[str, int, str]:
    """(batch, position, pair) of the validator's first item without their vote."""
    with Store.open(db) as store:
        for batch in validator_batches(store, validator):
            page = relabel_items(store, validator, batch.id)
            item = next((i for i in page.items if i.own_vote is None), None)
            if item is not None:
                return batch.id, item.position, item.pair_id
    raise DriveError(f"{validator} has no open item: make one with `nlibuild relabel create`")


def answer_for(protocol: Protocol, lang: str) -> dict[str, list[str]]:
    per_label = 1 if protocol is Protocol.SINGLE else 3
    texts = ANSWERS["zh" if lang.startswith("zh") else "en"]
    return {label.value: texts[label][:per_label] for label in texts}


def drive(db: Path, writer_link: Path, validator_link: Path) -> None:
    with running_server(db) as base:
        print(f"demo: nlibuild serve is up on {base}")
        with WorkbenchClient(link_on(base, writer_link)) as writer:
            writer.sign_in()
            writer_id = signed_in_as(writer)
            batch, premise, protocol, lang = writers_open_premise(db, writer_id)
            sent = writer.submit(batch, premise, answer_for(protocol, lang))
            if sent.status_code != 200:
                raise DriveError(f"the answer was refused: {sent.status_code} {sent.text}")
            result = sent.json()
            print(
                f"demo: writer {writer_id} answered {premise} of batch {batch} ({protocol.value})"
                f": run {result['run_id']}, pairs {', '.join(result['pairs_added'])}, "
                f"{result['violations_added']} violations recorded"
            )
        with WorkbenchClient(link_on(base, validator_link)) as validator:
            validator.sign_in()
            validator_id = signed_in_as(validator)
            batch, position, pair = validators_open_item(db, validator_id)
            voted = validator.vote(batch, position, "neutral", seconds=4.0)
            if voted.status_code != 200:
                raise DriveError(f"the vote was refused: {voted.status_code} {voted.text}")
            print(
                f"demo: validator {validator_id} labelled {pair} (item {position} of batch "
                f"{batch}) neutral: run {voted.json()['run_id']}"
            )
    print("demo: the server is stopped")


def signed_in_as(client: WorkbenchClient) -> str:
    """Who the link signed in, as the page's header names them."""
    page = client.home()
    return page.split('<span class="who">', 1)[1].split(" (", 1)[0]


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        drive(Path(argv[0]), Path(argv[1]), Path(argv[2]))
    except DriveError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
