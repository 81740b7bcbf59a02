"""The order the xdist workers take the tests in: the longest first, spread over the workers.

``--dist worksteal`` (pyproject's addopts) hands each worker a contiguous slice of the collected
tests and lets an idle worker take half of the busiest one's queue from its end. A test that
takes a minute, collected near the end of a slice, ran while the other workers had nothing left:
one run's last 140 s had a single worker busy. ``order_for_workers`` puts the tests known to be
long (``LONG_TESTS``, seconds measured on a loaded 2-core machine; refresh it from a timing run
now and then, a stale or missing name only costs balance) at the start of the slices, the
longest first, each to the slice with the least long work so far, and keeps every other test in
its collected order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

LONG_TESTS: dict[str, int] = {
    "tests/packages/test_package_commands.py::test_install_remove_list_leave_upstreams_settings_bytes": 110,
    "tests/test_typing.py::test_package_type_checks_cleanly": 95,
    "tests/conformance/test_conformance.py::test_core_and_run_tiers_over_each_listen_transport[tcp]": 55,
    "tests/conformance/test_conformance.py::test_core_and_run_tiers_over_each_listen_transport[unix]": 50,
    "tests/conformance/test_conformance.py::test_core_and_run_tiers_over_each_listen_transport[ws]": 50,
    "tests/mcp/test_cli.py::test_same_output_and_exit_codes_as_upstream": 37,
    "tests/test_structure.py::test_no_class_defines_more_than_60_methods": 35,
    "tests/ai/test_oauth_wire.py::test_refresh_timeout_as_upstream": 31,
    "tests/test_structure.py::test_tests_do_not_edit_sys_path": 27,
    "tests/reliability/test_fuzz.py::test_fuzz_short_run[5]": 24,
    "tests/mcp/test_cli.py::test_add_list_remove": 23,
    "tests/session/test_postgres_store.py::test_server_stopped_10s_during_a_prompt_loses_and_doubles_nothing": 23,
    "tests/reliability/test_slow_reader.py::test_bash_output_while_the_client_does_not_read": 22,
    "tests/runtime/test_event_stream.py::test_seq_is_gap_free_over_20000_records_with_concurrent_queries": 21,
    "tests/interop/test_session_listing_interop.py::test_list_sessions_matches_upstream": 21,
    "tests/extensions/test_ext_typescript_faults.py::test_a_hung_sidecar_is_killed_and_restarted": 20,
    "tests/extensions/test_ext_mcp_servers.py::test_registered_servers_connect_and_follow_changes": 18,
    "tests/modes/test_interactive_pickers.py::test_resume_path_toggle_and_upstreams_search_syntax": 17,
    "tests/modes/test_interactive_settings.py::test_settings_writes_upstreams_keys_and_applies_them": 17,
    "tests/mcp/test_oauth.py::test_login_refresh_and_logout": 16,
    "tests/mcp/test_upstream_rpc.py::test_crash_reconnect_and_abort": 15,
    "tests/conformance/test_conformance.py::test_extensions_tier_against_ours": 15,
    "tests/mcp/test_upstream_rpc.py::test_deferred_tools_through_tool_search": 14,
    "tests/reliability/test_sigkill.py::test_sigkill_at_random_moments": 14,
    "tests/test_layering.py::test_layers_import_only_inner_layers": 14,
    "tests/tools/test_bash_tool.py::test_success_matches_upstream_shape": 13,
    "tests/extensions/test_ext_typescript.py::test_upstream_example_runs_as_under_upstream[send-user-message]": 13,
    "tests/session/test_hostile_entries.py::test_no_entry_disables_a_session": 12,
    "tests/mcp/test_tool_search_reopen.py::test_deferred_tools_loaded_by_tool_search_are_declared_in_a_new_process": 12,
    "tests/reliability/test_sqlite_rpc.py::test_sigkill_during_prompts_forks_and_compactions": 11,
    "tests/mcp/test_upstream_rpc.py::test_codemode_scripts": 11,
    "tests/packages/test_pypi_packages.py::test_pypi_package_installs_into_a_managed_venv_and_loads": 11,
    "tests/test_structure.py::test_every_rpc_command_is_one_row_of_the_command_table": 10,
    "tests/modes/test_interactive.py::test_enter_while_streaming_steers_and_escape_aborts": 10,
    "tests/modes/test_interactive_settings.py::test_scoped_models_toggle_save_and_cycle": 10,
    "tests/mcp/test_connection.py::test_timeout_fails_the_request_and_progress_resets_it": 10,
    "tests/modes/test_interactive_pickers.py::test_resume_scope_sort_named_rename_and_delete": 10,
    "tests/clients/test_typescript_client.py::test_node_client_suite_against_ours": 10,
    "tests/conformance/test_conformance.py::test_core_tier_against_ours": 9,
    "tests/ai/test_oauth_lock_wire.py::test_rotated_token_written_before_exit": 9,
    "tests/modes/test_interactive_display.py::test_display_settings_from_the_picker_restyle_the_app": 9,
    "tests/modes/test_interactive_fullscreen.py::test_tui_mode_switches_live_from_settings": 9,
    "tests/modes/test_attach_remote_session.py::test_the_app_drives_a_served_session": 8,
    "tests/mcp/test_upstream_rpc.py::test_direct_tools_results_and_errors": 8,
}


def slice_sizes(count: int, workers: int) -> list[int]:
    """How many tests worksteal's first distribution gives each worker (``check_schedule``:
    the pending tests divided evenly among the idle workers, one after the other)."""
    sizes = []
    left = count
    for i in range(workers):
        size = left // (workers - i)
        sizes.append(size)
        left -= size
    return sizes


def order_for_workers(items: Sequence[T], nodeid: Callable[[T], str], workers: int) -> list[T]:
    """``items`` reordered so each of ``workers`` slices starts with its share of the long tests
    (``nodeid(item)``: its pytest node id)."""
    if workers < 2:
        return list(items)
    long = sorted((i for i in items if nodeid(i) in LONG_TESTS), key=lambda i: -LONG_TESTS[nodeid(i)])
    if not long:
        return list(items)
    picked = {id(i) for i in long}
    rest = [i for i in items if id(i) not in picked]
    sizes = slice_sizes(len(items), workers)
    heads: list[list[T]] = [[] for _ in range(workers)]
    load = [0] * workers
    for item in long:
        # the slice with the least long work that still has room for it
        fits = [w for w in range(workers) if len(heads[w]) < sizes[w]] or list(range(workers))
        w = min(fits, key=lambda k: load[k])
        heads[w].append(item)
        load[w] += LONG_TESTS[nodeid(item)]
    ordered: list[T] = []
    for w in range(workers):
        take = max(sizes[w] - len(heads[w]), 0)
        ordered += heads[w] + rest[:take]
        rest = rest[take:]
    return ordered + rest
