"""Backends and the command surface of Table 5 (MAS-Bench App. E, F.3-F.4)."""

from __future__ import annotations

import pytest

from accord.games.sorting.actions import (
    NO_COMMAND,
    UNCLOSED_FENCE,
    no_command_reply,
    parse_blocks,
    parse_fenced,
)
from accord.games.sorting.backends import BackendError, DirectStore, KeyValueStore
from accord.games.sorting.commands import (
    COMM_VERBS,
    VERBS,
    Dispatcher,
    head,
    parse_int_list,
    render_replies,
)

NONE = [False, False, False]


def make(kind: str, n: int = 3) -> Dispatcher:
    d = Dispatcher(kind)  # type: ignore[arg-type]
    d.reset(n)
    return d


# -- fenced parsing (App. F.3) ----------------------------------------------------------------
def test_every_block_in_order_with_language_tags_dropped() -> None:
    text = "I will share.\n```bash\nbroadcast_message hi\n```\nthen\n```\nreceive_messages\n```"
    assert parse_fenced(text) == ["broadcast_message hi", "receive_messages"]


def test_one_line_block_and_multi_line_value() -> None:
    assert parse_fenced("```wait```") == ["wait"]
    assert parse_fenced("```\nwrite_file k\nline1\nline2\n\n```") == ["write_file k\nline1\nline2"]


def test_no_block_and_unterminated_fence_give_nothing() -> None:
    assert parse_fenced("just talking, no commands") == []
    assert parse_fenced("```\nreceive_messages") == []
    assert parse_fenced("```\nwait\n``` and ```\nlist_agents") == ["wait"]


def test_a_lone_line_before_a_newline_is_a_language_tag() -> None:
    # The App. F.3 regex treats the first line as a tag when a newline follows it.
    assert parse_fenced("```wait\n```") == [""]


def test_int_list_forms() -> None:
    assert parse_int_list("[3, 1, 2]") == [3, 1, 2]
    assert parse_int_list("3 1 2") == [3, 1, 2]
    assert parse_int_list(" [ -4,5 ] ") == [-4, 5]
    assert parse_int_list("7") == [7]
    for bad in ("[]", "", "[1, x]", "[1.5]", "one two"):
        with pytest.raises(ValueError):
            parse_int_list(bad)


def test_head_shortens_long_commands() -> None:
    assert head("broadcast_message " + "x" * 200).endswith("...")
    assert len(head("broadcast_message " + "x" * 200)) == 80
    assert head("write_file k\nvalue") == "write_file k"


# -- broadcasting (E.2) -----------------------------------------------------------------------
def test_broadcast_delivers_to_everyone_else_once_in_order() -> None:
    d = make("broadcast")
    out = d.run(0, "broadcast_message hello all", NONE)
    assert out.ok and out.comm and out.reply == "Sent to Agent-1, Agent-2."
    d.run(2, "broadcast_message from two", NONE)
    got = d.run(1, "receive_messages", NONE)
    assert got.reply == "Agent-0 broadcast: hello all\nAgent-2 broadcast: from two"
    assert got.data["messages"] == [
        {"from": 0, "body": "hello all"},
        {"from": 2, "body": "from two"},
    ]
    assert d.run(1, "receive_messages", NONE).reply == "No new messages."
    assert d.run(0, "receive_messages", NONE).reply == "Agent-2 broadcast: from two"


def test_broadcast_alone_and_list_agents_and_wait() -> None:
    d = make("broadcast", 1)
    assert d.run(0, "broadcast_message x", [False]).reply.startswith("Sent to nobody")
    d = make("broadcast")
    out = d.run(1, "list_agents", NONE)
    assert out.reply == "Registered agents: Agent-0, Agent-1, Agent-2." and not out.comm
    assert out.data["agents"] == [0, 1, 2]
    w = d.run(1, "wait", NONE)
    assert w.ok and not w.comm and w.reply == "OK, waited."


def test_broadcast_submit_announces_the_result() -> None:
    d = make("broadcast")
    out = d.run(1, "submit_result [4, 5, 6]", NONE)
    assert out.submitted == [4, 5, 6] and not out.comm
    assert out.reply == "Result recorded: [4, 5, 6]. Announced to Agent-0, Agent-2."
    assert d.run(0, "receive_messages", NONE).reply == (
        "Agent-1 broadcast: Agent-1 submitted its result: [4, 5, 6]"
    )


def test_broadcast_bad_arguments_change_nothing() -> None:
    d = make("broadcast")
    for cmd, needle in [
        ("broadcast_message   ", "needs the text"),
        ("receive_messages now", "takes no arguments"),
        ("submit_result", "list of integers"),
        ("submit_result [1, two]", "list of integers"),
        ("list_agents all", "takes no arguments"),
    ]:
        out = d.run(0, cmd, NONE)
        assert not out.ok and out.submitted is None and needle in out.reply
        assert out.reply.startswith(f"Command failed ({head(cmd)}):")
    assert d.run(1, "receive_messages", NONE).reply == "No new messages."


@pytest.mark.parametrize("kind", ["broadcast", "p2p", "kv"])
def test_unknown_verbs_and_other_backends_verbs(kind: str) -> None:
    d = make(kind)
    others = {v for vs in VERBS.values() for v in vs} - set(VERBS[kind])  # type: ignore[index]
    known = "The commands here are: " + ", ".join(VERBS[kind]) + "."  # type: ignore[index]
    for verb in [*sorted(others), "sort_everything", "Receive_Messages"]:
        out = d.run(0, f"{verb} 1", NONE)
        assert not out.ok and out.reply.startswith(f"Unknown command: {verb} 1. ")
        assert out.reply.endswith(known)
        if verb in others:
            assert "belongs to another backend" in out.reply
    assert "lower case: did you mean wait?" in d.run(0, "WAIT", NONE).reply
    assert "Did you mean wait?" in d.run(0, "wiat", NONE).reply
    assert "no code or comments" in d.run(0, "def check(x):\n    pass", NONE).reply
    empty = d.run(0, "", NONE).reply
    assert empty == "Unknown command: (empty block). The block was empty: write one command " + (
        "inside it. " + known
    )


def test_fence_tags_are_dropped_but_kept_for_the_reply() -> None:
    assert parse_blocks("```wait\n```") == [("wait", "")]
    assert parse_blocks("```bash\nwait\n```\n```wait```") == [("bash", "wait"), ("", "wait")]
    assert parse_blocks("```write_file k\nv\n```") == [("write_file k", "v")]
    assert parse_fenced("```wait\n```") == [""]  # App. F.3: the tag line is dropped
    d = make("kv")
    out = d.run(0, "", NONE, tag="write_file notes")
    assert not out.ok and "'write_file notes' was written on the opening ``` line" in out.reply
    assert out.reply.endswith("```\nwrite_file notes\n```")
    # A tag that is not a command of this backend changes nothing.
    assert "'python'" not in d.run(0, "", NONE, tag="python").reply


def test_no_command_reply_names_an_unclosed_fence() -> None:
    assert no_command_reply("just prose") == NO_COMMAND
    assert no_command_reply("```\nwait") == NO_COMMAND + UNCLOSED_FENCE
    assert "fenced code block" in NO_COMMAND


# -- P2P (E.3) --------------------------------------------------------------------------------
def test_p2p_directed_delivery_and_order() -> None:
    d = make("p2p")
    assert d.run(0, "send_message 2 first", NONE).reply == "Delivered to Agent-2."
    d.run(1, "send_message 2 multi\nline body", NONE)
    d.run(0, "send_message 1 not for two", NONE)
    got = d.run(2, "receive_messages", NONE)
    assert got.reply == "Agent-0 to you: first\nAgent-1 to you: multi\nline body"
    assert d.run(2, "receive_messages", NONE).reply == "No new messages."
    assert d.run(1, "receive_messages", NONE).data["messages"] == [
        {"from": 0, "body": "not for two"}
    ]


def test_p2p_offline_refusal_inserts_nothing() -> None:
    d = make("p2p")
    out = d.run(0, "send_message 1 late", [False, True, False])
    assert not out.ok and out.comm
    assert out.reply == "Not delivered: Agent-1 has already submitted and is offline."
    assert isinstance(d.store, DirectStore) and d.store.unread(1) == 0


def test_p2p_bad_targets_and_forms() -> None:
    d = make("p2p")
    for cmd, needle in [
        ("send_message 7 hi", "no agent with id 7"),
        ("send_message -1 hi", "no agent with id -1"),
        ("send_message two hi", "agent id number"),
        ("send_message 1", "expected send_message <to> <body>"),
        ("send_message", "expected send_message <to> <body>"),
    ]:
        out = d.run(0, cmd, NONE)
        assert not out.ok and needle in out.reply, (cmd, out.reply)


def test_p2p_submit_has_no_side_effect() -> None:
    d = make("p2p")
    out = d.run(0, "submit_result 1 2 3", NONE)
    assert out.submitted == [1, 2, 3] and out.reply == "Result recorded: [1, 2, 3]."
    assert isinstance(d.store, DirectStore)
    assert [d.store.unread(i) for i in range(3)] == [0, 0, 0]


# -- K-V store (E.4) --------------------------------------------------------------------------
def test_kv_write_read_overwrite_delete() -> None:
    d = make("kv")
    out = d.run(0, "write_file slice_0\n[1, 2]\nsecond line", NONE)
    assert out.ok and out.comm
    assert out.reply == "Wrote slice_0 (18 chars, new file). Preview: [1, 2]\nsecond line"
    assert d.run(1, "read_file slice_0", NONE).reply == "Content of slice_0:\n[1, 2]\nsecond line"
    again = d.run(1, "write_file slice_0\nnew", NONE)
    assert "overwritten" in again.reply
    assert d.run(2, "read_file slice_0", NONE).data["content"] == "new"
    assert d.run(2, "delete_file slice_0", NONE).reply == "Deleted slice_0."
    gone = d.run(2, "read_file slice_0", NONE)
    assert not gone.ok and "no file named 'slice_0'" in gone.reply
    assert "no file named" in d.run(2, "delete_file slice_0", NONE).reply


def test_kv_list_prefix_in_insertion_order_with_logical_stamps() -> None:
    d = make("kv")
    d.store.clock = 1
    d.run(0, "write_file b_plan\nx", NONE)
    d.run(0, "write_file a_1\nxyz", NONE)
    d.store.clock = 2
    d.run(1, "write_file b_plan\nlonger", NONE)  # overwrite keeps the insertion position
    out = d.run(2, "list_files", NONE)
    assert out.reply == (
        "id=0 key=b_plan length=6 updated=round 2\nid=1 key=a_1 length=3 updated=round 1"
    )
    assert d.run(2, "list_files a_", NONE).data["files"] == ["a_1"]
    assert d.run(2, "list_files A", NONE).reply == "No files with prefix 'A'."
    assert d.run(2, "list_files %", NONE).reply == "No files with prefix '%'."


def test_kv_list_empty_store() -> None:
    assert make("kv").run(0, "list_files", NONE).reply == "No files."


def test_kv_long_values_are_previewed() -> None:
    out = make("kv").run(0, "write_file big\n" + "x" * 300, NONE)
    assert out.reply.endswith("Preview: " + "x" * 120 + "...")


def test_kv_bad_forms() -> None:
    d = make("kv")
    for cmd, needle in [
        ("write_file", "expected write_file <key>"),
        ("write_file k v on one line", "expected write_file <key>"),
        ("write_file k", "the value is missing"),
        ("read_file", "expected read_file <key>"),
        ("read_file a b", "expected read_file <key>"),
        ("delete_file", "expected delete_file <key>"),
        ("list_files a b", "at most one argument"),
    ]:
        out = d.run(0, cmd, NONE)
        assert not out.ok and needle in out.reply, (cmd, out.reply)
    assert d.run(0, "list_files", NONE).reply == "No files."


def test_kv_submit_writes_the_marker_file() -> None:
    d = make("kv")
    out = d.run(2, "submit_result [9]", NONE)
    assert out.reply == "Result recorded: [9]. Wrote file Agent-2_submission.txt."
    assert d.run(0, "list_files Agent-2_", NONE).data["files"] == ["Agent-2_submission.txt"]
    content = d.run(0, "read_file Agent-2_submission.txt", NONE).data["content"]
    assert content == "Agent-2 submitted [9] and is now offline."


# -- stores -----------------------------------------------------------------------------------
def test_reset_clears_everything_and_reregisters() -> None:
    d = make("kv")
    d.run(0, "write_file a\n1", NONE)
    d.reset(2)
    assert d.run(0, "list_files", NONE).reply == "No files."
    assert d.store.agents() == [(0, "Agent-0"), (1, "Agent-1")]
    b = make("broadcast")
    b.run(0, "broadcast_message x", NONE)
    b.reset(3)
    assert b.run(1, "receive_messages", NONE).reply == "No new messages."
    b.close()
    with pytest.raises(RuntimeError, match="before reset"):
        b.store.agents()


def test_store_errors_are_backend_errors() -> None:
    kv = KeyValueStore()
    kv.reset(1)
    with pytest.raises(BackendError):
        kv.read("nope")
    p2p = DirectStore()
    p2p.reset(2)
    with pytest.raises(BackendError):
        p2p.send(0, 5, "x")


def test_comm_classification_matches_table5() -> None:
    assert {
        "receive_messages", "broadcast_message", "send_message",
        "list_files", "read_file", "write_file", "delete_file",
    } == COMM_VERBS  # fmt: skip


def test_unknown_backend_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown backend"):
        Dispatcher("smoke")  # type: ignore[arg-type]


def test_render_replies_names_each_command() -> None:
    d = make("broadcast")
    outs = [d.run(0, "wait", NONE), d.run(0, "", NONE)]
    assert render_replies(outs).startswith(
        "[wait]\nOK, waited.\n\n[(empty block)]\nUnknown command: (empty block). "
    )


# -- malformed blocks (issue 24) -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("kind", "block", "line"),
    [
        ("broadcast", "wait\nsubmit_result [1, 2]", "line 2: submit_result [1, 2]"),
        ("broadcast", "broadcast_message my list is [4, 9]\nreceive_messages", "line 2"),
        ("p2p", "send_message 1 hello\nsend_message 2 hello", "line 2: send_message 2 hello"),
        ("kv", "write_file mine\n[1, 2]\nsubmit_result [1, 2]", "line 3: submit_result"),
    ],
)
def test_a_block_with_a_second_command_runs_nothing(kind: str, block: str, line: str) -> None:
    d = make(kind)
    out = d.run(0, block, NONE)
    assert not out.ok and out.submitted is None
    assert out.reply.startswith(f"Nothing was run ({head(block)}): this block holds 2 commands")
    assert line in out.reply and "its own ``` block" in out.reply
    # Nothing was delivered or stored: the swallowed command did not travel as text.
    if kind == "kv":
        assert d.run(0, "list_files", NONE).reply == "No files."
    else:
        assert d.run(1, "receive_messages", NONE).reply == "No new messages."
    # A message whose later lines are plain text is still sent whole, even when a line starts
    # with a verb that the rest of the line does not fit.
    if kind == "broadcast":
        assert d.run(0, "broadcast_message first line\nsecond line", NONE).ok
        text = "broadcast_message plan:\nwait for my list\nsubmit_result when all agree"
        assert d.run(0, text, NONE).ok


def test_an_unknown_first_line_names_the_commands_below_it() -> None:
    out = make("broadcast").run(0, "# my plan\nreceive_messages", NONE)
    assert out.reply.startswith("Unknown command: # my plan.")
    assert "This block also holds commands (line 2: receive_messages)" in out.reply


@pytest.mark.parametrize(
    ("verb", "meant"), [("list", "list_files"), ("ls", "list_files"), ("read", "read_file")]
)
def test_kv_shorthands_get_the_verb_they_stand_for(verb: str, meant: str) -> None:
    out = make("kv").run(0, verb, NONE)
    assert not out.ok and f"Did you mean {meant}?" in out.reply


def test_list_agents_on_the_kv_backend_names_the_agents() -> None:
    out = make("kv").run(0, "list_agents", NONE)
    assert "no agent list: the agents are Agent-0, Agent-1, Agent-2" in out.reply
    assert "list_files shows what they have stored" in out.reply
