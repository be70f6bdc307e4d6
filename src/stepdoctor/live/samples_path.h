// Where `run` and `watch` write their samples when no --out is given: one file per run and
// rank, named by when it started, the host, the rank and the process, so the ranks of a job
// (srun, torchrun, mpirun: one `stepdoctor run` each) started in the same second in one folder
// never share a name. The file is then created exclusively (SamplesWriter::Create): nothing is
// ever overwritten.
#pragma once

#include <cstdint>
#include <ctime>
#include <functional>
#include <string>
#include <string_view>

namespace stepdoctor::live {

// This process's rank in a distributed job, from its launcher's environment: RANK (torchrun,
// accelerate, DeepSpeed), else SLURM_PROCID (srun), else OMPI_COMM_WORLD_RANK (mpirun); -1 where
// none holds a non-negative integer. `getenv` is injectable for tests.
int RankFromEnvironment(const std::function<const char*(const char*)>& getenv = {});

// "stepdoctor-samples-20250114-103000-gpu-node-7-rank3-pid4242.jsonl": the local start time,
// the host (characters other than letters, digits, '.', '-' and '_' become '_'), "-rankN" where
// the rank is known, and the pid of the sampling process.
std::string DefaultSamplesName(std::string_view host, int rank, int64_t pid, std::time_t started);

// DefaultSamplesName for this process now: gethostname(), RankFromEnvironment(), getpid().
std::string DefaultSamplesNameNow();

}  // namespace stepdoctor::live
