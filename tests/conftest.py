"""Shared test fixtures.  The references (brute force, tree walker, tolerances) live in
``tests/reference.py``."""

import re
from pathlib import Path

import nbformat
import pytest
from hypothesis import HealthCheck, settings

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def tagged_cells(name, tag="teaching"):
    """The code cells of ``notebooks/<name>`` tagged ``tag``, in order.  O(cells)."""
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    return [c for c in notebook.cells
            if c.cell_type == "code" and tag in c.get("metadata", {}).get("tags", [])]


def notebook_cells(name, tag="teaching"):
    """Run the code cells of ``notebooks/<name>`` tagged ``tag`` and return their
    namespace.  A chapter marks the cells that define a teaching version of an
    algorithm with this tag; a test then checks that version against treelib."""
    namespace = {}
    cells = tagged_cells(name, tag)
    if not cells:
        raise LookupError(f"{name} has no code cell tagged {tag!r}")
    for cell in cells:
        exec(compile(cell.source, f"{name}[{tag}]", "exec"), namespace)
    return namespace


def prose(name):
    """The markdown of ``notebooks/<name>``, its white space folded to single spaces and
    its glossary links read as their words (``tools/link_glossary.py`` adds them)."""
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    text = " ".join(" ".join(c.source.split()) for c in notebook.cells
                    if c.cell_type == "markdown")
    return re.sub(r"\[([^\[\]]*)\]\(\.\./book/glossary\.md#[\w-]+\)", r"\1", text)


def claim(name, sentence):
    """Assert that ``notebooks/<name>`` still says ``sentence`` (white space folded).

    A test that asserts a claim the page makes ("needs 25 trees", "within noise from 24
    bins on") calls this first, so the claim and its assertion cannot drift apart: when
    the page is rewritten, the test fails until the assertion is brought along."""
    sentence = " ".join(sentence.split())
    assert sentence in prose(name), f"{name} no longer says: {sentence!r}"


# --- Test tiers (issue 21) --------------------------------------------------------------
#
# `make unit` runs every test under the hypothesis profile "ci"; `make quick` leaves out the
# tests marked slow (the families of SLOW below) and runs the rest under "dev".  The profiles
# are registered here, before any test module is imported, so the settings objects a test
# module builds fall back to the loaded profile.

#: Examples a hypothesis test runs under the "dev" profile, at most (its own @settings too).
DEV_EXAMPLES = 10

# "ci" is hypothesis's own built-in "ci" profile, what CI ran before the suite had profiles
# (hypothesis loads it when the CI variable is set): 100 examples unless a test says
# otherwise, derandomized (every run of `make test` tries the same examples, so a result
# does not depend on the day), no deadline (a loaded machine is not a failure), no example
# database.  Exploring new examples is a separate, deliberate run:
# `pytest --hypothesis-profile=default tests`.
# "dev": a quick run, reproducible (derandomized, no example database), no deadline (a
# loaded machine is not a failure).
settings.register_profile("dev", max_examples=DEV_EXAMPLES, deadline=None, derandomize=True,
                          database=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci")     # when nothing is said; pytest's --hypothesis-profile overrides


def _tests(module, names, why):
    """One SLOW entry per test of ``tests/<module>`` named in ``names`` (blank-separated,
    without their ``test_``), all for the reason ``why``.  O(len(names))."""
    return [(rf"tests/{re.escape(module)}::test_{name}\b", why) for name in names.split()]


_WALK = "trees of whole data sets compared node by node with scikit-learn's"
_BENCH = "runs a benchmark's timing loop or its command line"
_DATA = "grows many trees or measures memory on a whole data set"
_CHAPTER = "reruns a chapter's experiment at the chapter's size"

#: The slow families, left out of `make quick`: (regular expression matched at the start of a
#: test's node id, why).  Chosen from a measured run (`--durations=0`, then the CPU seconds of
#: each test of the quick tier): what took about 0.5 s of CPU or more there, except the
#: finders' brute-force comparisons.  tests/test_tiers.py checks that each entry still
#: matches a test and that every module keeps a quick test.  (Tests marked
#: @pytest.mark.slow in their own module are slow too.)
SLOW = [
    # scikit-learn's estimator checks (parametrize_with_checks): some 1,500 generated tests
    # of the API contract, each a few small fits.  Two checks that fit nothing stay quick,
    # for every estimator: its __init__ only stores its parameters, and get_params agrees.
    (r"tests/.+::test_scikit_learn_compatible\["
     r"(?!.*-check_(no_attributes_set_in_init|get_params_invariance)\]$)",
     "scikit-learn's estimator checks"),
    # the options table's generated test: each case fits every estimator that takes it.
    (r"tests/test_options\.py::test_the_estimators_do_what_the_table_says\[",
     "fits every estimator for every pair of options"),
    # whole-dataset agreement walks
    *_tests("estimators/test_sklearn_agreement.py",
            "depth_limited_trees_equal_scikit_learns california_trees_equal_scikit_learns "
            "stopping_rules_match_scikit_learn "
            "root_split_equals_scikit_learn_on_california_housing "
            "best_first_growth_matches_scikit_learn entropy_and_gini_trees_equal_scikit_learns "
            "level_wise_trees_equal_scikit_learns slow_splitters_agree_on_a_subsample "
            "the_one_tie_at_depth_six_on_california_housing weighted_trees_equal_scikit_learns "
            "trees_with_missing_values_equal_scikit_learns", _WALK),
    *_tests("growth/test_level_wise.py", "level_wise_trees_equal_scikit_learns", _WALK),
    # benchmark-running tests
    *_tests("bench/test_benchmarks.py",
            "time_tree_fits_times_every_method_on_every_repeat growth_data_resamples_with_noise "
            "time_bins_scores_every_setting time_subtraction_counts_fewer_pairs_for_the_same_tree "
            "auc_table_scores_labels_and_probabilities compare_methods_and_its_table "
            "rdt_cost_measures_routed_samples "
            "boosting_benchmark_compares_the_peers_line_search_and_goss", _BENCH),
    *_tests("bench/test_categorical.py",
            "time_categorical_ranks_the_strategies_as_the_theory_says", _BENCH),
    *_tests("bench/test_criteria.py", "time_medians_finds_one_split_three_ways "
            "time_poisson_scores_both_criteria_on_every_split", _BENCH),
    *_tests("bench/test_forests_bench.py", "every_ensemble_is_fitted_and_scored_at_every_size",
            _BENCH),
    *_tests("bench/test_growth_bench.py",
            "growth_child_reports_cpu_seconds_for_regression_and_classification", _BENCH),
    *_tests("bench/test_missing.py", "time_missing_scores_every_strategy_and_setting", _BENCH),
    *_tests("bench/test_parallel_bench.py", "threads_are_timed_side_by_side", _BENCH),
    *_tests("bench/test_registry.py", "command_line_writes_a_csv_with_the_machine", _BENCH),
    # growth and estimators on whole data sets, memory measured under tracemalloc
    *_tests("growth/test_depth_first.py",
            "recursive_builder_refuses_a_chain_deeper_than_it_can_grow "
            "grow_recursive_refuses_a_deep_chain_and_grows_a_shallower_one",
            "grows chains thousands of nodes deep"),
    *_tests("growth/test_level_wise_hist.py",
            "histogram_memory_stays_near_the_exact_growers_with_many_classes "
            "histogram_memory_stays_near_the_exact_growers_on_wide_data "
            "a_huge_node_costs_a_tiny_one_no_digits subtraction_is_exact_for_class_counts", _DATA),
    *_tests("growth/test_weighted_hist.py",
            "hist_forest_scores_as_scikit_learns threads_grow_the_depth_first_tree_with_weights "
            "heavy_siblings_do_not_round_a_light_node_into_other_cuts", _DATA),
    *_tests("growth/test_fixed_point_growth.py", "tree_bits_do_not_depend_on_row_order_or_blocks",
            _DATA),
    *_tests("estimators/test_boosting.py",
            "binary_log_loss_on_a9a_is_scikit_learns goss_learns_from_a_third_of_the_rows "
            "missing_values_go_where_scikit_learns_do", _DATA),
    *_tests("estimators/test_random_trees.py", "classifier_reproduces_the_seed_on_a1a", _DATA),
    # the chapters' experiments
    *_tests("chapters/test_01_what_is_a_split.py", "classification_splits_and_the_exercises",
            _CHAPTER),
    *_tests("chapters/test_03_three_searches.py", "three_splitters_same_split_on_a_real_node",
            _CHAPTER),
    *_tests("chapters/test_04_search_cost.py", "share_of_candidate_cuts_over_whole_trees",
            _CHAPTER),
    *_tests("chapters/test_06_level_wise_growth.py",
            "both_orders_search_the_same_nodes_of_the_subsample", _CHAPTER),
    *_tests("chapters/test_10_histograms_at_scale.py",
            "subtraction_counts_fewer_pairs_for_the_same_tree", _CHAPTER),
    *_tests("chapters/test_11_random_thresholds.py",
            "averaging_helps_only_trees_that_differ "
            "exercise_the_gap_probability_and_the_expected_gain "
            "random_trees_predict_worse_than_exact_trees_tree_for_tree", _CHAPTER),
    *_tests("chapters/test_12_random_decision_trees.py",
            "ensembles_compared_with_ensembles missing_incomes_cost_less_than_dropping_the_feature "
            "the_varying_features_of_a9a_nodes", _CHAPTER),
    *_tests("chapters/test_13_splits_with_gradients.py",
            "claim_min_child_weight_forbids_the_cuts_of_sure_samples", _CHAPTER),
    *_tests("chapters/test_14_the_boosting_loop.py",
            "claim_goss_in_the_loop_costs_little_auc "
            "claim_the_loop_is_the_estimator_and_every_tree_helps", _CHAPTER),
    *_tests("chapters/test_15_forests.py",
            "claim_fewer_features_per_node_make_worse_trees "
            "claim_out_of_bag_close_to_and_below_the_test_score "
            "claim_the_terms_of_the_four_ensembles "
            "on_the_subsample_bagging_beats_the_other_ensembles", _CHAPTER),
    *_tests("chapters/test_16_oblivious_trees.py",
            "claim_boosted_oblivious_trees_overfit_less", _CHAPTER),
    *_tests("chapters/test_19_categorical_features.py", "the_hours", _CHAPTER),
    *_tests("chapters/test_20_which_splits_to_keep.py",
            "the_full_trees_differ_from_scikit_learns "
            "the_chapters_cross_validation_is_the_files_seed_0",
            _CHAPTER),
    *_tests("chapters/test_22_monotonic_constraints.py",
            "without_the_bounds_the_tree_falls_with_them_never "
            "constrained_boosting_is_scikit_learns_and_never_falls", _CHAPTER),
    *_tests("chapters/test_24_parallel_sums.py", "the_tree_does_not_depend_on_n_jobs "
            "the_order_of_the_rows_moves_float_values_not_fixed_point_ones", _CHAPTER),
    *_tests("chapters/test_27_choosing_a_split_method.py",
            "ten_seeds_of_a_random_tree_spread_wider_than_the_two_splitters", _CHAPTER),
    *_tests("chapters/test_A1_agreement_with_scikit_learn.py",
            "large_offsets_move_scikit_learns_splits_only only_ties_and_pure_nodes_on_california "
            "the_gini_tree_of_breast_cancer_has_six_exactly_tied_nodes", _CHAPTER),
    *_tests("chapters/test_A2_seed_errata.py",
            "seed_fast_scan_cuts_between_equal_values_in_a_real_tree", _CHAPTER),
    *_tests("chapters/test_A5_auc_table_rerun.py", "fresh_fits_give_the_committed_aucs",
            _CHAPTER),
    *_tests("chapters/test_A6_criteria_against_scikit_learn.py",
            "every_node_compared_is_scikit_learns_or_a_tie", _CHAPTER),
    *_tests("chapters/test_A7_boosting_agreement.py", "treelib_counts_a_twelfth_of_a9as_pairs",
            _CHAPTER),
    *_tests("chapters/test_A8_how_the_benchmarks_ran.py",
            "fresh_bins_and_subtraction_are_the_committed_ones "
            "fresh_scores_are_the_committed_ones fresh_naive_search_is_tens_of_times_the_scan "
            "fresh_optimal_search_keeps_its_margin",
            _CHAPTER),
]

_SLOW = [(re.compile(pattern), why) for pattern, why in SLOW]

#: Key of ``config.stash``: every collected test as (node id, marked slow, hypothesis test),
#: before `-m`/`-k` deselect any (tests/test_tiers.py reads it).
COLLECTED = pytest.StashKey[list]()


def slow_reason(nodeid):
    """Why the test ``nodeid`` is slow (the first entry of ``SLOW`` that matches it), or
    None.  O(len(SLOW))."""
    for pattern, why in _SLOW:
        if pattern.match(nodeid):
            return why
    return None


def hypothesis_function(test):
    """The function of ``test`` (a method's ``__func__``) if it is a hypothesis test, else
    None.  O(1)."""
    function = getattr(test, "__func__", test)          # a method's function
    return function if getattr(function, "is_hypothesis_test", False) else None


def cap_examples(test, most):
    """Let the hypothesis test function ``test`` run at most ``most`` examples, whatever its
    own @settings say, keeping its other settings.  No-op for other functions.  O(1).

    An explicit ``@settings(max_examples=...)`` overrides the loaded profile, so the "dev"
    profile alone would not shorten the ~130 tests that set one."""
    function = hypothesis_function(test)
    if function is None:
        return
    current = function._hypothesis_internal_use_settings
    if current.max_examples > most:
        function._hypothesis_internal_use_settings = settings(current, max_examples=most)


@pytest.hookimpl(tryfirst=True)         # before `-m "not slow"` deselects
def pytest_collection_modifyitems(config, items):
    """Mark the tests of the ``SLOW`` families slow; under the "dev" profile, cap every
    hypothesis test at ``DEV_EXAMPLES`` examples; keep the whole collection in
    ``config.stash[COLLECTED]``.  O(len(items) * len(SLOW))."""
    dev = settings.get_current_profile_name() == "dev"
    collected = []
    for item in items:
        if slow_reason(item.nodeid) is not None:
            item.add_marker(pytest.mark.slow)
        function = getattr(item, "obj", None)
        if dev and function is not None:
            cap_examples(function, DEV_EXAMPLES)
        collected.append((item.nodeid, item.get_closest_marker("slow") is not None,
                          hypothesis_function(function) is not None))
    config.stash[COLLECTED] = collected
