"""Fake skyrl/train/generators/utils.py at a9564572: prepare_generator_input (:511-560), each prompt row's uid
repeated for its n samples."""


def prepare_generator_input(prompts, n_samples_per_prompt, sampling_params, default_env_class, training_phase, global_step):
    all_prompts = [p["prompt"] for p in prompts for _ in range(n_samples_per_prompt)]
    uids = [p["uid"] for p in prompts for _ in range(n_samples_per_prompt)]
    return {"prompts": all_prompts, "sampling_params": sampling_params}, uids
