// --save-calibration: a run's measured step time as a calibration file in `bench`'s format
// (include/hcp/calibration.h). The format carries rates, not step times, so the one rate that
// reproduces the measurement is fitted: the attention TFLOP/s (apply_calibration's only
// compute figure), with every other figure left as the profile gives it.
#include <string>

#include "hcp/logcheck.h"

namespace hcp {

Result<Calibration> calibration_from_run(const ModelDims& model, const LogPrediction& prediction,
                                         const Hardware& hardware, const TrainingSetup& setup,
                                         double measured_step_s, const std::string& tool_version) {
  if (measured_step_s <= 0) return Error{"no measured step time to calibrate with", {}, ""};
  if (hardware.peak_tflops <= 0) return Error{"the cluster profile has no peak TFLOP/s", {}, ""};
  auto step_at = [&](double tflops) -> Result<double> {
    Hardware hw = hardware;
    Calibration c;
    c.summary.attention_tflops = tflops;
    apply_calibration(hw, c, "fit");
    auto est = estimate(model, prediction.layout, hw, setup);
    if (!est) return est.error();
    return est->time.step_s;
  };
  // The step time falls as the attention rate rises; bisect on [0.1%, 100%] of the peak.
  double lo = hardware.peak_tflops * 0.001;
  double hi = hardware.peak_tflops;
  auto slow = step_at(lo);
  auto fast = step_at(hi);
  if (!slow) return slow.error();
  if (!fast) return fast.error();
  if (*fast > measured_step_s) {
    return Error{
        "the measured step time is shorter than the model allows even at the GPU's peak "
        "attention rate (" +
            std::to_string(static_cast<int64_t>(*fast * 1000)) +
            " ms): no calibration reproduces it (is CP communication off?)",
        {},
        ""};
  }
  if (*slow < measured_step_s) {
    return Error{
        "the measured step time is longer than the model gives even at 0.1% of the peak "
        "attention rate: the time is spent outside attention; run `hcp-plan bench` to "
        "calibrate the links",
        {},
        ""};
  }
  for (int i = 0; i < 60; ++i) {
    double mid = (lo + hi) / 2;
    auto step = step_at(mid);
    if (!step) return step.error();
    if (*step > measured_step_s) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  Calibration cal;
  cal.source = "hcp-plan check-log " + tool_version +
               ": attention TFLOP/s fitted to the measured " +
               std::to_string(measured_step_s * 1000) + " ms step of " + prediction.layout.label();
  cal.device = hardware.gpu_name;
  cal.gpus = hardware.gpus_per_node;
  const Layout& l = prediction.layout;
  cal.option = "tp=" + std::to_string(l.tp) + ",cp=" + std::to_string(l.cp) +
               ",pp=" + std::to_string(l.pp) + ",cp_comm_type=" + cp_comm_type_name(l.comm);
  if (l.comm == CommType::kA2aP2p)
    cal.option += ",hcp=" + std::to_string(l.hcp_a2a()) + "x" + std::to_string(l.hcp_p2p());
  cal.summary.attention_tflops = (lo + hi) / 2;
  return cal;
}

}  // namespace hcp
