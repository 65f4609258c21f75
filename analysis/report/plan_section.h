// The report's section of one plan folder (gpumux plan --out): per model the answer, its saving
// and metrics, the size below it and where its parameters came from; the knee of each objective;
// the assumptions every answer rests on and the sensitivity to them. A folder of a plan over
// several loads gets its GPUs-by-load chart, then one such table per load.
#pragma once

#include <sstream>
#include <vector>

#include "analysis/report/report_data.h"
#include "analysis/report/report_inputs.h"

namespace gpumux {

void plan_section(std::ostringstream& page, std::vector<ReportFigure>& figures,
                  const PlanFolder& p);

}  // namespace gpumux
