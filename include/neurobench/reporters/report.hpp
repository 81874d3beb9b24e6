// SPDX-License-Identifier: Apache-2.0
// Reports and comparisons of results files (docs/reports.md): every reporter header. Include a
// single one of them to use only that part.
#pragma once

#include <neurobench/reporters/compare.hpp>
#include <neurobench/reporters/format.hpp>
#include <neurobench/reporters/formats.hpp>
#include <neurobench/reporters/html_report.hpp>
#include <neurobench/reporters/markdown_report.hpp>
#include <neurobench/reporters/metric_info.hpp>
#include <neurobench/reporters/run_results.hpp>
