"""A scripted OpenAI-compatible server for the parity check: replies per model
from a JSON file, every request body logged as it came (one JSON line each)."""
import json, sys, http.server, threading

replies = json.load(open(sys.argv[1]))
log = open(sys.argv[2], "a")
port_file = sys.argv[3]
served = {m: 0 for m in replies}
lock = threading.Lock()

class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        req = json.loads(body)
        model = req.get("model", "")
        with lock:
            log.write(json.dumps({"path": self.path, "body": body.decode()}) + "\n"); log.flush()
            if self.path.endswith("/embeddings"):
                out = {"data": [{"embedding": [0.0] * 8, "index": 0}], "model": model, "usage": {"prompt_tokens": 1, "total_tokens": 1}}
            else:
                lst = replies.get(model) or replies.get("*")
                i = served.get(model, 0); served[model] = i + 1
                text = lst[i] if i < len(lst) else "Thought: done\n```rhai\ncomplete(false, \"out of replies\");\n```"
                # A reply that is an object is a message of function calls (--actions json).
                if isinstance(text, dict):
                    message, finish = {"role": "assistant", "content": None, "tool_calls": text["tool_calls"]}, "tool_calls"
                else:
                    message, finish = {"role": "assistant", "content": text}, "stop"
                p = len(body) // 4
                out = {"id": "x", "object": "chat.completion", "created": 0, "model": model,
                       "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                       "usage": {"prompt_tokens": p, "completion_tokens": 7, "total_tokens": p + 7}}
        data = json.dumps(out).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data))); self.end_headers(); self.wfile.write(data)

s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(port_file, "w").write(str(s.server_address[1]))
s.serve_forever()
