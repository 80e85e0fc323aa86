# course_add_schema_tests(): ctests that the course's input files obey their JSON Schemas
# (docs/*.schema.json) and that the schemas can fail. Run: ctest -R course.schemas
#
#   course.schemas.<schema>.meta       the schema is a valid draft 2020-12 JSON Schema
#   course.schemas.<schema>.files      every real file obeys it: lessons/*/manifest.json,
#                                      solutions/*/*key*.json, solutions/*/mutants/*/mutant.json
#                                      (review: its valid fixture)
#   course.schemas.<schema>.fixture    grader/tests/fixtures/schemas/<schema>.valid.json obeys it
#   course.schemas.rejects.<fixture>   cmake/validate_json.py exits 1 on an invalid fixture and
#                                      names the expected JSON path and error
# Needs python3 with jsonschema (Debian: python3-jsonschema). Globs are re-checked at build
# time, so a new lesson or mutant is validated without touching this file.
function(course_add_schema_tests)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(NOT Python3_FOUND)
    message(STATUS "course schemas: no python3, schema tests skipped")
    return()
  endif()
  execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import jsonschema"
                  RESULT_VARIABLE no_jsonschema OUTPUT_QUIET ERROR_QUIET)
  if(no_jsonschema)
    message(WARNING "course schemas: python3 cannot import jsonschema (apt install python3-jsonschema); "
                    "the course.schemas tests will fail")
  endif()

  get_filename_component(root "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/.." ABSOLUTE)
  set(validate "${Python3_EXECUTABLE}" "${root}/cmake/validate_json.py")
  set(fixtures "${root}/grader/tests/fixtures/schemas")
  if(NOT EXISTS "${fixtures}")
    # A student release (grader dev release): no keys, mutants or fixtures to check.
    message(STATUS "course schemas: no ${fixtures} (a student release): schema tests skipped")
    return()
  endif()

  file(GLOB manifest_files CONFIGURE_DEPENDS "${root}/lessons/*/manifest.json")
  file(GLOB answer_key_files CONFIGURE_DEPENDS "${root}/solutions/*/*key*.json")
  file(GLOB mutant_files CONFIGURE_DEPENDS "${root}/solutions/*/mutants/*/mutant.json")

  # No review file is part of the course: its valid fixture stands in for one.
  set(review_files "${fixtures}/review.valid.json")

  foreach(schema IN ITEMS manifest answer_key mutant review)
    set(schema_file "${root}/docs/${schema}.schema.json")
    add_test(NAME course.schemas.${schema}.meta COMMAND ${validate} "${schema_file}")
    set_tests_properties(course.schemas.${schema}.meta PROPERTIES
                         PASS_REGULAR_EXPRESSION "valid JSON Schema \\(draft 2020-12\\)")
    if(NOT ${schema}_files)
      message(WARNING "course schemas: no files for docs/${schema}.schema.json")
    endif()
    add_test(NAME course.schemas.${schema}.files COMMAND ${validate} "${schema_file}" ${${schema}_files})
    add_test(NAME course.schemas.${schema}.fixture
             COMMAND ${validate} "${schema_file}" "${fixtures}/${schema}.valid.json")
  endforeach()

  # Each invalid fixture: <schema>|<fixture name>|<start of the expected "JSON-PATH: message">
  # (messages as jsonschema 4.10, Debian's, and later word them). Each fixture is
  # <schema>.valid.json with one thing broken.
  set(rejects
    "manifest|manifest.unknown-key|$.units[0].items[0]: Additional properties are not allowed ('feedbacks'"
    "manifest|manifest.schema-2|$.schema: 1 was expected"
    "manifest|manifest.answers-without-key|$.exercises[1]: 'key' is a required property"
    "manifest|manifest.key-on-code|$.exercises[0]: Unevaluated properties are not allowed ('key'"
    "manifest|manifest.unknown-kind|$.exercises[2].kind: 'cuda' is not one of"
    "manifest|manifest.kind-file-mismatch|$.exercises[0].file: 'scan.cu' does not match"
    "manifest|manifest.veto-id-underscore|$.units[0].vetoes[0].id: 'scan_is_serial' does not match"
    "manifest|manifest.item-id-upper-case|$.units[0].items[0].id: 'Code.Correct' does not match"
    "manifest|manifest.text-third-language|$.title: Additional properties are not allowed ('ja'"
    "manifest|manifest.hints-one-language|$.exercises[0].hints.blanks.total.levels[0]: 'en' is a required property"
    "manifest|manifest.hints-flat-lists|$.exercises[0].hints: Additional properties are not allowed ("
    "manifest|manifest.hint-four-levels|$.exercises[0].hints.blanks.total.levels: "
    "manifest|manifest.hint-release-level-4|$.hint_release_level: 4 is greater than the maximum of 3"
    "manifest|manifest.hint-level-zero|$.exercises[0].hints.blanks.start.release_level: 0 is less than the minimum of 1"
    "manifest|manifest.hints-blanks-on-answers|$.exercises[1].hints.blanks: {'q1': "
    "manifest|manifest.negative-points|$.units[1].items[0].points: -1 is less than the minimum of 0"
    "manifest|manifest.no-units|$.units: []"
    "answer_key|answer_key.number-with-options|$.parts[2]: Unevaluated properties are not allowed ('options'"
    "answer_key|answer_key.veto-if-wrong-on-multi|$.parts[1]: Unevaluated properties are not allowed ('veto_if_wrong'"
    "answer_key|answer_key.veto-if-outside-on-term|$.parts[3]: Unevaluated properties are not allowed ('veto_if_outside'"
    "answer_key|answer_key.choice-two-correct|$.parts[0].correct: ['a', 'b'] is too long"
    "answer_key|answer_key.unknown-type|$.parts[3].type: 'word' is not one of"
    "answer_key|answer_key.number-without-tolerance|$.parts[2]: 'tolerance' is a required property"
    "answer_key|answer_key.empty-synonym|$.parts[4].key_points[0].claims[0]: [['归约', '下扫', 'up-sweep', 'down-sweep', 'reduce', '']] is not valid under any of the given schemas"
    "answer_key|answer_key.negative-points|$.parts[0].points: -0.5 is less than the minimum of 0"
    "answer_key|answer_key.option-label|$.parts[1].correct[0]: '(a)' does not match"
    "mutant|mutant.typo-failed-item|$.expect: Additional properties are not allowed ('failed_item'"
    "mutant|mutant.other-units-same|$.expect.other_units: 'same' is not one of"
    "mutant|mutant.edit-without-replace|$.edits[0]: 'replace' is a required property"
    "mutant|mutant.empty-find|$.edits[0].find: ''"
    "mutant|mutant.build-failure-path|$.expect.build_failures[0]: 'solutions/lesson99/scan_gpu.cu' does not match"
    "mutant|mutant.passed-as-string|$.expect.passed: 'false' is not of type 'boolean'"
    "review|review.veto-true|$.vetoes.exam['flops-reduced']: True is not one of"
    "review|review.flat-items|$: Additional properties are not allowed ('q1'"
    "invalid|invalid.schema|$.type: not a valid schema")
  # sh -c SCRIPT VALIDATOR... : the validator must exit 1 and print FILE: <expected>.
  set(expect_error [[
out=$("$@" 2>&1); rc=$?; printf '%s\n' "$out"
[ "$rc" -eq 1 ] || { echo "expected exit status 1, got $rc"; exit 1; }
printf '%s\n' "$out" | grep -qF -- "$EXPECTED" || { echo "expected: $EXPECTED"; exit 1; }]])
  foreach(entry IN LISTS rejects)
    string(REPLACE "|" ";" fields "${entry}")
    list(GET fields 0 schema)
    list(GET fields 1 name)
    list(GET fields 2 message)
    if(schema STREQUAL "invalid")  # a broken schema, checked on its own
      set(args "${fixtures}/${name}.json")
    else()
      set(args "${root}/docs/${schema}.schema.json" "${fixtures}/${name}.json")
    endif()
    set(expected "${fixtures}/${name}.json: ${message}")
    add_test(NAME course.schemas.rejects.${name}
             COMMAND env "EXPECTED=${expected}" sh -c "${expect_error}" sh ${validate} ${args})
  endforeach()

  # Every fixture is used: an invalid fixture without its expectation tests nothing.
  file(GLOB fixture_files CONFIGURE_DEPENDS "${fixtures}/*.json")
  foreach(f IN LISTS fixture_files)
    get_filename_component(name "${f}" NAME_WLE)
    if(NOT name MATCHES "\\.valid$" AND NOT "${rejects}" MATCHES "\\|${name}\\|")
      message(FATAL_ERROR "course schemas: ${f} has no expected error in cmake/course_schemas.cmake")
    endif()
  endforeach()
endfunction()
