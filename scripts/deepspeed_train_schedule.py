#!/usr/bin/env python3
"""How long DeepSpeed's pipeline engine takes for a batch, against Megatron's 1F1B, when every
stage's forward takes F and backward B (communication free).

DeepSpeed's TrainSchedule (deepspeed/runtime/pipe/schedule.py, unchanged in this respect from 2021
to today) runs 2 x (micro-batches + stages - 1) steps; at each step a stage runs one forward or one
backward (stages alternate by parity) and, at the start of the step, exchanges with one neighbour:
a forward step receives the activation from the previous stage and sends it the gradient of the
previous backward; a backward step sends the next stage the previous forward's activation and
receives its gradient. The sends and receives are blocking NCCL calls on the compute stream, so a
step of a stage cannot start before its partner of that step has finished its own previous step.
This script plays that rule out and prints the batch time beside 1F1B's (m + p - 1)(F + B).

It answers a question docs/validation.md asked about MT-NLG 530B: does that pairing make a stage
wait for its neighbour's backward at every forward step (2 B a micro-batch instead of F + B)? It
does not: the times come out equal to 1F1B's.

  scripts/deepspeed_train_schedule.py STAGES MICRO_BATCHES F B
"""
import sys


def micro_batch_of(step, stage, stages):
    """Which micro-batch a stage works on at a step, and whether forward (DeepSpeed's mapping)."""
    even_step, even_stage = step % 2 == 0, stage % 2 == 0
    if even_step and even_stage:
        return step // 2 - stage // 2, True
    if not even_step and not even_stage:
        return step // 2 - stage // 2, True
    if even_step:
        return step // 2 - stages + (stage + 1) // 2, False
    return (step - 1) // 2 - stages + 1 + stage // 2, False


def deepspeed_time(stages, micro_batches, forward, backward):
    valid = lambda m: 0 <= m < micro_batches
    end = [0.0] * stages  # when each stage finished its latest step
    previous = [-1] * stages
    for step in range(2 * (micro_batches + stages - 1)):
        plan = [micro_batch_of(step, s, stages) for s in range(stages)]
        start = list(end)
        for s, (m, is_forward) in enumerate(plan):
            exchanges = valid(m) or valid(previous[s])
            partner = s - 1 if is_forward else s + 1
            if exchanges and 0 <= partner < stages:
                start[s] = max(start[s], end[partner])
        for s, (m, is_forward) in enumerate(plan):
            end[s] = start[s] + ((forward if is_forward else backward) if valid(m) else 0.0)
            previous[s] = m
    return max(end)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    stages, micro_batches = int(sys.argv[1]), int(sys.argv[2])
    forward, backward = float(sys.argv[3]), float(sys.argv[4])
    ds = deepspeed_time(stages, micro_batches, forward, backward)
    print(f"DeepSpeed TrainSchedule: {ds:g}; 1F1B: {(micro_batches + stages - 1) * (forward + backward):g}")


if __name__ == "__main__":
    main()
