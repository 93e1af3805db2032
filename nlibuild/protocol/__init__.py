"""The elicitation protocol and its checks (OCNLI 2.2, 3.2), batches of work for writers and
validators, and seeded, order-independent ranks."""
