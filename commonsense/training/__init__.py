"""Training on built or imported question sets: ReComSBench's curricula and LoRA fine-tuning."""
