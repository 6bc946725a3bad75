"""Knowledge points and chat messages for ./ops/bench/learn: deterministic, varied, English."""
import random

SUBJECTS = [
    "SwiftUI", "UIKit", "the Combine framework", "Swift concurrency", "Core Data", "URLSession", "Auto Layout",
    "photosynthesis", "cell division", "the immune system", "plate tectonics", "the water cycle", "black holes",
    "the French Revolution", "the Roman Empire", "the Industrial Revolution", "the Cold War", "the Renaissance",
    "supply and demand", "compound interest", "inflation", "opportunity cost", "game theory",
    "TCP handshakes", "public-key cryptography", "hash tables", "binary search", "garbage collection",
    "sourdough baking", "espresso extraction", "knife sharpening", "composting", "bread proofing",
    "the piano's sustain pedal", "chord progressions", "sonata form", "jazz improvisation", "counterpoint",
    "marathon training", "strength training", "stretching", "sleep hygiene", "hydration",
    "oil painting", "watercolour washes", "perspective drawing", "colour theory", "photographic exposure",
]
ASPECTS = [
    "the main idea", "how it began", "why it matters", "a common mistake", "the key terms", "a simple example",
    "how it is measured", "what it depends on", "how it fails", "a useful rule of thumb", "its history",
    "how to explain it to a child", "how experts use it", "its limits", "a related idea", "how to practise it",
    "what to read next", "the first step", "a surprising fact", "how it changed over time",
]
TEMPLATES = [
    "What is {aspect} of {subject}?", "Explain {aspect} of {subject}.", "Describe {aspect} of {subject}.",
    "Summarise {aspect} of {subject}.", "Give me {aspect} of {subject}.", "Tell me about {aspect} of {subject}.",
    "Remind me of {aspect} of {subject}.", "Note on {aspect} of {subject}.", "Flashcard: {aspect} of {subject}.",
    "Question about {aspect} of {subject}.", "Quiz me on {aspect} of {subject}.", "Review {aspect} of {subject}.",
]


def points(count):
    """`count` distinct (question, answer) pairs."""
    pairs = []
    for template in TEMPLATES:
        for subject in SUBJECTS:
            for aspect in ASPECTS:
                question = template.format(aspect=aspect, subject=subject)
                answer = (f"For {subject}, {aspect} comes down to practice and attention: "
                          f"study one small part of {subject} at a time and check it against an example.")
                pairs.append((question, answer))
    random.Random(7).shuffle(pairs)
    if count > len(pairs):
        raise SystemExit(f"at most {len(pairs)} distinct points")
    return pairs[:count]


def messages(count):
    """Half near a stored point (a source is expected), half about nothing stored."""
    rng = random.Random(11)
    unrelated = ["What's the weather like on Mars today?", "Recommend a film for a rainy evening.",
                 "How many legs does a spider have?", "Translate good morning into Finnish.",
                 "Who won the football match last night?", "Plan a three-day trip to Lisbon."]
    out = []
    for n in range(count):
        if n % 2 == 0:
            out.append(f"Can you explain {rng.choice(ASPECTS)} of {rng.choice(SUBJECTS)}?")
        else:
            out.append(rng.choice(unrelated))
    return out
