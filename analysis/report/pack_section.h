// The report's section of one pack folder (gpumux pack --out, packing/pack_study.h): the FGD
// study's figure, GPU allocation against the arrived GPU request, one line per policy with the
// 95% interval over the seeds as a band; the same for fragmentation; and a table of each
// policy's allocation at 100, 110, 120 and 130 % arrived (those within the run's range).
#pragma once

#include <sstream>
#include <vector>

#include "analysis/report/report_data.h"
#include "analysis/report/report_inputs.h"

namespace gpumux {

void pack_section(std::ostringstream& page, std::vector<ReportFigure>& figures,
                  const PackFolder& p);

}  // namespace gpumux
