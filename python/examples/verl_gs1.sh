#!/usr/bin/env bash
# GS1 in verl (verl-project/verl 1dda039b): one rollout per prompt, the baseline from the other prompts of the
# batch (tfidf_kernel_loo_T0.1) instead of verl's grpo, which gives a lone rollout A = r (core_algos.py:315-317).
# Needs: pip install rl-advantages verl (and verl's own requirements), a parquet data set made by verl's
# examples/data_preprocess/gsm8k.py, and the GSM8K train questions as the TF-IDF corpus.
#   DATA=~/data/gsm8k MODEL=Qwen/Qwen2.5-0.5B-Instruct CORPUS=~/gsm8k/train.jsonl bash python/examples/verl_gs1.sh
set -euo pipefail
: "${DATA:?set DATA to the folder with train.parquet and test.parquet}" "${MODEL:?set MODEL}" "${CORPUS:?set CORPUS}"

# verl imports this module at its own import (verl/__init__.py:49-52) in every process that imports verl, the
# TaskRunner Ray actor that runs the trainer included (v1, the default, or legacy with trainer.use_v1=false).
export VERL_USE_EXTERNAL_MODULES=rl_advantages.integrations.verl
export RL_ADV_VERL_ESTIMATORS=tfidf_kernel_loo_T0.1   # registered as rl_adv:tfidf_kernel_loo_T0.1
export RL_ADV_VERL_PROMPT_KEY=raw_prompt              # each rollout's prompt: TransferQueue field (v1), non_tensor_batch (legacy)
export RL_ADV_CORPUS="$CORPUS"                        # the TF-IDF vocabulary (fitted once, in the trainer process, at its first step)

# Batch sizes verl's own validation accepts (verl/utils/config.py:validate_config, main_ppo.py:177): a train batch
# no smaller than the actor's PPO mini-batch (verl/workers/config/actor.py:227-231; its default is 256), micro-batch
# sizes set (actor.py:209-212, config.py:141), and 64 x rollout.n divisible by the GPUs (config.py:110).
# python/tests/integrations/fixtures/verl_example_config.py runs that validation from verl's code on these lines.

python3 -m verl.trainer.main_ppo \
  'algorithm.adv_estimator="rl_adv:tfidf_kernel_loo_T0.1"' \
  actor_rollout_ref.rollout.n=1 \
  data.train_files="$DATA/train.parquet" data.val_files="$DATA/test.parquet" \
  data.train_batch_size=64 \
  actor_rollout_ref.actor.ppo_mini_batch_size=64 \
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8 \
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8 \
  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=8 \
  actor_rollout_ref.model.path="$MODEL" \
  trainer.logger=console "$@"
