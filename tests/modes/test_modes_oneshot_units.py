"""Unit tests of the print/json input assembly and text-mode result (pi_rpc.modes._oneshot)."""

from __future__ import annotations

import base64
import os

import pytest

from pi_rpc.errors import StartupError
from pi_rpc.modes._oneshot import (
    TRUNCATED_MESSAGE,
    ProcessedFiles,
    build_prompts,
    final_text_result,
    process_file_args,
    read_piped_stdin,
)

PNG_1X1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def test_build_prompts_joins_stdin_files_and_first_message_without_separator():
    files = ProcessedFiles(text='<file name="/a">\nx\n</file>\n', images=[{"type": "image"}])
    prompts = build_prompts(("one", "two", "three"), stdin_content="IN", files=files)
    assert prompts.initial == 'IN<file name="/a">\nx\n</file>\none'
    assert prompts.images == [{"type": "image"}]
    assert prompts.sequence() == [(prompts.initial, prompts.images), ("two", None), ("three", None)]


def test_build_prompts_without_input_has_no_prompt():
    prompts = build_prompts(())
    assert prompts.initial is None
    assert prompts.sequence() == []


def test_build_prompts_skips_an_empty_initial_but_keeps_empty_later_messages():
    prompts = build_prompts(("", ""))
    assert prompts.sequence() == [("", None)]


def test_build_prompts_stdin_only():
    assert build_prompts((), stdin_content="data").sequence() == [("data", None)]


def _assistant(stop: str, texts: list[str], **extra):
    content = [{"type": "thinking", "thinking": "hmm"}] + [{"type": "text", "text": t} for t in texts]
    return {"role": "assistant", "content": content, "stopReason": stop, **extra}


def test_final_text_result_prints_each_text_block():
    assert final_text_result([_assistant("stop", ["a", "b"])]) == (["a", "b"], None, 0)


def test_final_text_result_error_and_aborted():
    assert final_text_result([_assistant("error", ["x"], errorMessage="boom")]) == ([], "boom", 1)
    assert final_text_result([_assistant("aborted", [])]) == ([], "Request aborted", 1)
    assert final_text_result([_assistant("error", [])]) == ([], "Request error", 1)


def test_final_text_result_length_prints_and_fails():
    assert final_text_result([_assistant("length", ["part"])]) == (["part"], TRUNCATED_MESSAGE, 1)


def test_final_text_result_only_looks_at_the_last_message():
    user = {"role": "user", "content": [{"type": "text", "text": "q"}]}
    assert final_text_result([_assistant("stop", ["old"]), user]) == ([], None, 0)
    assert final_text_result([]) == ([], None, 0)


def test_process_file_args_text_image_empty_and_bom(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"\xef\xbb\xbfhello\n")
    (tmp_path / "pic.bin").write_bytes(PNG_1X1)
    (tmp_path / "empty.txt").write_bytes(b"")
    out = process_file_args(["a.txt", "pic.bin", "empty.txt"], str(tmp_path))
    a, pic = tmp_path / "a.txt", tmp_path / "pic.bin"
    assert out.text == f'<file name="{a}">\nhello\n\n</file>\n<file name="{pic}"></file>\n'
    assert out.images == [{"type": "image", "mimeType": "image/png", "data": base64.b64encode(PNG_1X1).decode()}]


def test_process_file_args_converts_bmp_to_png_like_upstream(tmp_path):
    from PIL import Image

    Image.new("RGB", (3, 2), (200, 10, 10)).save(tmp_path / "x.bmp", format="BMP")
    out = process_file_args(["x.bmp"], str(tmp_path))
    assert out.text == f'<file name="{tmp_path / "x.bmp"}">[Image converted from image/bmp to image/png.]</file>\n'
    assert [i["mimeType"] for i in out.images] == ["image/png"]
    assert base64.b64decode(out.images[0]["data"]).startswith(b"\x89PNG")


def test_process_file_args_bad_bmp_header_is_text_like_upstream(tmp_path):
    # Upstream's strict sniffing does not take a BMP with an inconsistent header for an image.
    bmp = b"BM" + (70).to_bytes(4, "little") + b"\0\0\0\0" + (54).to_bytes(4, "little") + (40).to_bytes(4, "little")
    (tmp_path / "x.bmp").write_bytes(bmp + b"\0" * 56)
    out = process_file_args(["x.bmp"], str(tmp_path))
    assert out.images == []
    assert out.text.startswith(f'<file name="{tmp_path / "x.bmp"}">\nBM')


def test_process_file_args_missing_file(tmp_path):
    with pytest.raises(StartupError) as info:
        process_file_args(["missing.txt"], str(tmp_path))
    assert info.value.message == f"Error: File not found: {tmp_path / 'missing.txt'}"
    assert info.value.exit_code == 1


def test_read_piped_stdin_reads_to_eof_and_trims():
    r, w = os.pipe()
    try:
        os.write(w, "  \u00e9t\u00e9 data \n\n".encode())
        os.close(w)
        assert read_piped_stdin(r) == "\u00e9t\u00e9 data"
    finally:
        os.close(r)


def test_read_piped_stdin_empty_is_none():
    r, w = os.pipe()
    os.close(w)
    try:
        assert read_piped_stdin(r) is None
    finally:
        os.close(r)
