#!/usr/bin/env bash
# GS1 in slime (THUDM/slime 624b824a): the whole batch's rewards become tfidf_kernel_loo_T0.1 advantages in the
# reward post-processing, which slime then uses as they are with --advantage-estimator grpo
# (slime/backends/megatron_utils/loss.py:763-767). slime's own post-processing gives a group of one r - r = 0.
# Needs: pip install rl-advantages, slime and its Megatron/SGLang set-up; append your usual model, data and
# parallelism arguments (see slime's examples) after this script's name.
#   CORPUS=~/gsm8k/train.jsonl bash python/examples/slime_gs1.sh --hf-checkpoint ... --prompt-data ...
set -euo pipefail
: "${CORPUS:?set CORPUS to the TF-IDF corpus (e.g. the GSM8K train questions, JSON lines with a question field)}"
export RL_ADV_ESTIMATOR=tfidf_kernel_loo_T0.1
export RL_ADV_CORPUS="$CORPUS"
python3 train.py \
  --advantage-estimator grpo \
  --n-samples-per-prompt 1 \
  --custom-reward-post-process-path rl_advantages.integrations.slime.post_process_rewards \
  "$@"
