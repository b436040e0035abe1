"""Fake openrlhf/datasets/prompts_dataset.py at 3c3be623: ``preprocess_data`` (:26-45: with a chat template the
``input_key`` field, a string made a one-message user chat, is templated; else ``input_template`` formats it) and
``PromptDataset`` (:48-96), which calls ``preprocess_data`` by its module name for each row (:85)."""
import copy


def preprocess_data(data, input_template=None, input_key="input", label_key=None, apply_chat_template=None):
    if apply_chat_template:
        chat = data[input_key]
        if isinstance(chat, str):
            chat = [{"role": "user", "content": chat}]  # _str_to_content_list: unchanged without <image>
        else:
            chat = copy.deepcopy(chat)
        prompt = apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
    else:
        prompt = data[input_key]
        if input_template:
            prompt = input_template.format(prompt)
    label = "" if label_key is None else data[label_key]
    return prompt, label


class PromptDataset:
    def __init__(self, dataset, apply_chat_template=None, input_template=None, input_key="question"):
        self.prompts = []
        for data in dataset:
            prompt, _ = preprocess_data(data, input_template, input_key, None, apply_chat_template)
            self.prompts.append(prompt)
