// echo-des: predicts the time of one training iteration of a job on a GPU cluster.
#include "cli/commands.hpp"

int main(int argc, char** argv) { return echo::cli::echo_des_main(argc, argv); }
