#!/usr/bin/python3
"""A Signet receipt verifier written from docs/receipts.md alone, in a second language.

It is the proof that the document is a contract a stranger can implement: canonical JSON (JavaScript's number and
string rules), the prompt hash (messages, legacy lines, raw text, a Responses request, an embeddings input), the
response hash (a chat completion, a Responses object, stream chunks or events, {result}, text, embeddings vectors as
float32), the Ed25519 signatures (the operator's over a receipt, the verifier's over a hosted verdict) and the
operator key's rotation rule. Nothing here comes from the TypeScript library. It needs Python 3 and PyNaCl (Debian's
python3-nacl).

    verify_receipt.py DIR...   each DIR a vector folder (receipt.json, request.json, response.json,
                               operator-pubkey.txt, and recorded-http.json when the key is fetched; or verdict.json
                               and verifier-pubkey.txt); prints one JSON line per folder with the checks it computed
    verify_receipt.py --receipt FILE --prompt FILE --response FILE --operator-key BASE58
                               one receipt (FILE as JSON, or as text when it is not JSON); prints the checks

Payment checks (4 and 5) need a chain and are not made here. Exit code: 0 when every receipt verified (and every
verdict signature was valid), 1 otherwise, 2 on a usage error.
"""

import base64
import hashlib
import json
import math
import os
import struct
import sys

from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

B58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def b58decode(text):
    number = 0
    for char in text:
        index = B58_ALPHABET.find(char)
        if index < 0:
            raise ValueError("not base58")
        number = number * 58 + index
    raw = number.to_bytes((number.bit_length() + 7) // 8, "big") if number else b""
    return b"\0" * (len(text) - len(text.lstrip("1"))) + raw


# --- Canonical JSON -------------------------------------------------------------------------------------------------


def js_number(value):
    """A number as JavaScript's Number::toString writes it (the table in docs/receipts.md)."""
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        raise ValueError("JSON cannot carry NaN or an infinity")
    if value == 0:
        return "0"
    if value < 0:
        return "-" + js_number(-value)
    # repr gives the shortest digits that read back as the same double; only their layout differs from JavaScript's.
    mantissa, _, exponent = repr(value).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    scale = int(exponent or 0) - len(fraction)
    stripped = digits.rstrip("0")
    scale += len(digits) - len(stripped)
    digits = stripped
    k = len(digits)
    n = k + scale  # the value is 0.digits x 10^n
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    return digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))


SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def js_string(text):
    """A string as JSON.stringify writes it: short escapes, \\u00XX below U+0020, lone surrogates escaped."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in SHORT_ESCAPES:
            out.append(SHORT_ESCAPES[char])
        elif code < 0x20 or 0xD800 <= code <= 0xDFFF:
            out.append("\\u%04x" % code)
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def utf16_key(text):
    return text.encode("utf-16-be", "surrogatepass")


def canonical(value):
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return js_number(value)
    if isinstance(value, str):
        return js_string(value)
    if isinstance(value, list):
        return "[" + ",".join(canonical(item) for item in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=utf16_key)
        return "{" + ",".join(js_string(key) + ":" + canonical(value[key]) for key in keys) + "}"
    raise ValueError("not a JSON value: %r" % (value,))


def utf8(text):
    # A lone surrogate cannot be UTF-8: canonical JSON escapes it, and answer text never holds one (sent as U+FFFD).
    return text.encode("utf-8", "surrogatepass")


def sha256_hex(text):
    return hashlib.sha256(utf8(text)).hexdigest()


# --- The prompt hash ------------------------------------------------------------------------------------------------


def is_token_id(value):
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 2**53 - 1


def is_token_list(value):
    return isinstance(value, list) and len(value) > 0 and all(is_token_id(item) for item in value)


def embedding_inputs(value):
    """An embeddings `input` as the list of its inputs, or None when it is none of the four forms."""
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not value:
        return None
    if all(isinstance(item, str) for item in value):
        return value
    if is_token_list(value):
        return [value]
    if all(is_token_list(item) for item in value):
        return value
    return None


def responses_messages(body):
    """The messages a Responses request maps to, or None when its input holds anything but text messages, function
    calls and their outputs."""
    messages = []
    instructions = body.get("instructions")
    if isinstance(instructions, str) and instructions != "":
        messages.append({"role": "system", "content": instructions})
    given = body.get("input")
    if isinstance(given, str):
        return messages + [{"role": "user", "content": given}]
    if not isinstance(given, list):
        return None
    for item in given:
        if isinstance(item, dict) and item.get("type") == "function_call":
            fields = (item.get("call_id"), item.get("name"), item.get("arguments"))
            if not all(isinstance(field, str) for field in fields):
                return None
            call = {"id": fields[0], "type": "function", "function": {"name": fields[1], "arguments": fields[2]}}
            if messages and "tool_calls" in messages[-1]:
                messages[-1]["tool_calls"].append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
            continue
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            if not isinstance(item.get("call_id"), str) or not isinstance(item.get("output"), str):
                return None
            messages.append({"role": "tool", "tool_call_id": item["call_id"], "content": item["output"]})
            continue
        if not isinstance(item, dict) or not isinstance(item.get("role"), str):
            return None
        if "type" in item and item["type"] != "message":
            return None
        content = item.get("content")
        if isinstance(content, str):
            messages.append({"role": item["role"], "content": content})
            continue
        if not isinstance(content, list):
            return None
        parts = []
        for part in content:
            if not isinstance(part, dict) or part.get("type") not in ("input_text", "output_text"):
                return None
            if not isinstance(part.get("text"), str):
                return None
            parts.append({"type": "text", "text": part["text"]})
        messages.append({"role": item["role"], "content": parts})
    return messages


def message_hashes(messages):
    hashes = [sha256_hex(canonical(messages))]
    lines = all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in messages)
    if lines and all(isinstance(m.get("content"), str) for m in messages):
        hashes.append(sha256_hex("\n".join(m["role"] + ":" + m["content"] for m in messages)))
    return hashes


def embeddings_hashes(value):
    inputs = embedding_inputs(value)
    return [] if inputs is None else [sha256_hex(canonical(inputs))]


def prompt_hashes(prompt):
    """Every hash the prompt may have been signed under (docs/receipts.md, The prompt hash)."""
    if isinstance(prompt, str):
        return [sha256_hex(prompt)] + embeddings_hashes(prompt)
    if isinstance(prompt, list):
        return embeddings_hashes(prompt) if embedding_inputs(prompt) is not None else message_hashes(prompt)
    if isinstance(prompt, dict):
        hashes = []
        if isinstance(prompt.get("messages"), list):
            hashes += message_hashes(prompt["messages"])
        elif "input" in prompt:
            mapped = responses_messages(prompt)
            if mapped is not None:
                hashes += message_hashes(mapped)
        if isinstance(prompt.get("prompt"), str):
            hashes.append(sha256_hex(prompt["prompt"]))
        if "input" in prompt:
            hashes += embeddings_hashes(prompt["input"])
        return hashes
    return []


# --- The response hash ----------------------------------------------------------------------------------------------


def response_text(response):
    if isinstance(response, str):
        return response
    if isinstance(response, list):
        if response and isinstance(response[0], dict) and isinstance(response[0].get("type"), str):
            return events_text(response)
        return chunks_text(response)
    if not isinstance(response, dict):
        return None
    if isinstance(response.get("choices"), list):
        first = response["choices"][0] if response["choices"] else None
        if isinstance(first, dict) and isinstance(first.get("message"), dict):
            content = first["message"].get("content")
            if isinstance(content, str):
                return content
        return None
    if response.get("object") == "response":
        return responses_object_text(response.get("output"))
    if isinstance(response.get("result"), str):
        return response["result"]
    return None


def responses_object_text(output):
    if not isinstance(output, list):
        return None
    text = ""
    for item in output:
        if not isinstance(item, dict):
            return None
        if item.get("type") != "message":
            continue
        if not isinstance(item.get("content"), list):
            return None
        for part in item["content"]:
            if not isinstance(part, dict):
                return None
            if part.get("type") != "output_text":
                continue
            if not isinstance(part.get("text"), str):
                return None
            text += part["text"]
    return text


def chunks_text(chunks):
    text = ""
    for chunk in chunks:
        if not isinstance(chunk, dict) or not isinstance(chunk.get("choices"), list):
            return None
        if not chunk["choices"]:
            continue
        first = chunk["choices"][0]
        if not isinstance(first, dict) or not isinstance(first.get("delta"), dict):
            return None
        content = first["delta"].get("content")
        if content is None:
            continue
        if not isinstance(content, str):
            return None
        text += content
    return text


def events_text(events):
    text = ""
    for event in events:
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            return None
        if event["type"] != "response.output_text.delta":
            continue
        if not isinstance(event.get("delta"), str):
            return None
        text += event["delta"]
    return text


def float32(value):
    """The float32 nearest a double (ties to even), as a double; None for a value JSON or float32 cannot hold."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        rounded = struct.unpack("<f", struct.pack("<f", float(value)))[0]
    except OverflowError:
        return None
    return rounded if math.isfinite(rounded) else None


def float32_list(values):
    if not isinstance(values, list) or not values:
        return None
    out = [float32(value) for value in values]
    return None if any(value is None for value in out) else out


def float32_base64(text):
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        return None
    # Standard, padded base64: no other spelling of the same bytes.
    if base64.b64encode(raw).decode("ascii") != text or not raw or len(raw) % 4:
        return None
    values = [struct.unpack("<f", raw[i : i + 4])[0] for i in range(0, len(raw), 4)]
    return None if any(not math.isfinite(value) for value in values) else values


def embedding_vectors(response):
    if isinstance(response, list):
        if response and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in response):
            one = float32_list(response)
            return None if one is None else [one]
        if not response or not all(isinstance(v, list) for v in response):
            return None
        vectors = [float32_list(values) for values in response]
        return None if any(v is None for v in vectors) else vectors
    if not isinstance(response, dict) or not isinstance(response.get("data"), list) or not response["data"]:
        return None
    data = response["data"]
    vectors = [None] * len(data)
    for item in data:
        if not isinstance(item, dict):
            return None
        index = item.get("index")
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(data):
            return None
        if vectors[index] is not None:
            return None
        embedding = item.get("embedding")
        vector = float32_base64(embedding) if isinstance(embedding, str) else float32_list(embedding)
        if vector is None:
            return None
        vectors[index] = vector
    return vectors


def response_hash(response):
    text = response_text(response)
    if text is not None:
        return sha256_hex(text)
    vectors = embedding_vectors(response)
    return None if vectors is None else sha256_hex(canonical(vectors))


# --- Signatures and keys --------------------------------------------------------------------------------------------


def signature_ok(document, field, public_key):
    """Whether `document[field]` is an Ed25519 signature, by `public_key`, over the canonical JSON of the rest."""
    signature = document.get(field)
    if not isinstance(signature, str):
        return False
    rest = {key: value for key, value in document.items() if key != field}
    try:
        VerifyKey(b58decode(public_key)).verify(utf8(canonical(rest)), b58decode(signature))
        return True
    except (BadSignatureError, ValueError, TypeError):
        return False


def receipt_signed(receipt, key_resource):
    """The operator key resource's current key, or a retired one before its retirement, signed the receipt."""
    if signature_ok(receipt, "service_signature", key_resource["pubkey"]):
        return True
    timestamp = receipt.get("timestamp")
    for retired in key_resource.get("retired") or []:
        before = isinstance(timestamp, (int, float)) and timestamp < retired.get("retired_at", 0)
        if before and signature_ok(receipt, "service_signature", retired["pubkey"]):
            return True
    return False


def verify(receipt, prompt, response, key_resource):
    return {
        "prompt_hash_ok": receipt.get("prompt_hash") in prompt_hashes(prompt),
        "response_hash_ok": response_hash(response) == receipt.get("response_hash"),
        "service_signature_ok": receipt_signed(receipt, key_resource),
    }


# --- Vector folders and files ---------------------------------------------------------------------------------------


def read_json(path):
    with open(path, encoding="utf-8") as file:
        return json.load(file)


def read_json_or_text(path):
    with open(path, encoding="utf-8", errors="surrogatepass") as file:
        text = file.read()
    try:
        return json.loads(text)
    except ValueError:
        return text


def recorded_key_resource(folder):
    """The operator key resource a vector's recorded exchange with its endpoint answered."""
    for exchange in read_json(os.path.join(folder, "recorded-http.json")):
        request = exchange.get("request", {})
        if str(request.get("url", "")).endswith("/api/v1/operator-key"):
            answer = exchange.get("response", {})
            body = answer.get("body")
            return json.loads(body) if isinstance(body, str) else body
    return None


def check_folder(folder):
    name = os.path.basename(os.path.normpath(folder))
    if os.path.exists(os.path.join(folder, "verdict.json")):
        with open(os.path.join(folder, "verifier-pubkey.txt"), encoding="utf-8") as file:
            key = file.read().strip()
        verdict = read_json(os.path.join(folder, "verdict.json"))
        receipt = read_json(os.path.join(folder, "receipt.json"))
        return {
            "vector": name,
            "verdict_signature_ok": signature_ok(verdict, "verifier_signature", key),
            # The verdict is about this receipt only when it names this receipt's signature.
            "receipt_signature_matches": verdict.get("receipt_signature") == receipt.get("service_signature"),
        }
    receipt = read_json(os.path.join(folder, "receipt.json"))
    pinned = os.path.join(folder, "operator-pubkey.txt")
    expected = read_json(os.path.join(folder, "expected.json"))
    run = expected.get("run") or {"operator_key": "pinned"}
    if run.get("operator_key") == "endpoint":
        key_resource = recorded_key_resource(folder)
    else:
        with open(pinned, encoding="utf-8") as file:
            key_resource = {"pubkey": file.read().strip()}
    checks = verify(
        receipt,
        read_json(os.path.join(folder, "request.json")),
        read_json(os.path.join(folder, "response.json")),
        key_resource,
    )
    return {"vector": name, **checks}


def main(argv):
    if argv[:1] == ["--receipt"]:
        options = dict(zip(argv[0::2], argv[1::2]))
        if sorted(options) != ["--operator-key", "--prompt", "--receipt", "--response"]:
            print(__doc__, file=sys.stderr)
            return 2
        checks = verify(
            read_json(options["--receipt"]),
            read_json_or_text(options["--prompt"]),
            read_json_or_text(options["--response"]),
            {"pubkey": options["--operator-key"]},
        )
        print(json.dumps(checks))
        return 0 if all(checks.values()) else 1
    if not argv or any(arg.startswith("-") for arg in argv):
        print(__doc__, file=sys.stderr)
        return 2
    ok = True
    for folder in argv:
        result = check_folder(folder)
        print(json.dumps(result))
        ok = ok and all(value for key, value in result.items() if key != "vector")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
