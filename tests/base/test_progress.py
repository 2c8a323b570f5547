"""The one progress bar: the build's parts and slices, an export's frames."""

import io

from stratstone_cad.base.progress import ProgressBar


class _Tty(io.StringIO):
    """A stream that says it is a terminal, as stderr on one does."""

    def isatty(self):
        return True


def test_the_progress_bar_counts_the_frames_on_a_terminal():
    out = _Tty()
    bar = ProgressBar(200, out, title="replay x.mp4", lines=False)
    for i in range(1, 201):
        bar.reach(i)
    bar.close()
    text = out.getvalue()
    assert text.count("\r") == 101 and "replay x.mp4 [#########################] 100% 200/200" in text
    assert text.endswith("\n") and text.count("\n") == 1
    quiet = io.StringIO()
    ProgressBar(5, quiet, lines=False).reach(3)
    assert quiet.getvalue() == ""


def test_the_build_bar_writes_a_line_a_step_where_there_is_no_terminal():
    log = io.StringIO()
    bar = ProgressBar(2, log)
    bar.step("stratstone/board")
    bar.step("plate a", 1)
    bar.close()
    assert log.getvalue() == "[1/2] stratstone/board\n[2/2] plate a\n"


def test_the_progress_bar_ends_its_line_before_an_error():
    out = _Tty()
    bar = ProgressBar(10, out, title="replay x.gif", lines=False)
    bar.reach(4)
    bar.close()
    bar.close()  # again, as after an error: nothing more
    assert out.getvalue() == "\rreplay x.gif [##########---------------]  40% 4/10\n"


def test_a_full_bar_ends_its_line_by_itself_and_an_untitled_one_starts_with_the_bar():
    out = _Tty()
    bar = ProgressBar(2, out)
    bar.step("stratstone/board")
    bar.step("plate a")
    assert out.getvalue() == ("\r[############-------------]  50% 1/2 stratstone/board"
                              "\r[#########################] 100% 2/2 plate a\n")


def test_a_note_says_what_the_run_waits_for_without_counting_a_step():
    log = io.StringIO()
    bar = ProgressBar(2, log, title="slicing")
    bar.note("1 running in PrusaSlicer, started plate a")
    bar.step("1 running in PrusaSlicer, sliced plate b")
    assert log.getvalue() == ("[0/2] slicing: 1 running in PrusaSlicer, started plate a\n"
                              "[1/2] slicing: 1 running in PrusaSlicer, sliced plate b\n")
    out = _Tty()
    bar = ProgressBar(200, out, title="slicing")
    bar.step("a")
    bar.note("2 running")  # the same percent: drawn still
    assert out.getvalue() == "\rslicing [-------------------------]   0% 1/200 a\rslicing [-------------------------]   0% 1/200 2 running"
