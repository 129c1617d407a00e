import { describe, expect, it } from "vitest";
import type { PaymentPayload } from "@x402/core/types";
import {
  appendPaymentIdentifierToExtensions,
  generatePaymentId,
  PAYMENT_IDENTIFIER,
} from "@x402/extensions/payment-identifier";
import { PAYMENT_IDENTIFIER_DECLARATION, readPaymentId } from "./payment-id";

const base = {
  x402Version: 2,
  resource: { url: "http://x/y" },
  accepted: {},
  payload: {},
} as unknown as PaymentPayload;
const withExtensions = (extensions: unknown) => ({ ...base, extensions }) as PaymentPayload;

describe("readPaymentId()", () => {
  it("reads the id a stock client appends to the server's declaration", () => {
    const extensions = { [PAYMENT_IDENTIFIER]: structuredClone(PAYMENT_IDENTIFIER_DECLARATION) };
    const id = generatePaymentId();
    appendPaymentIdentifierToExtensions(extensions, id);
    expect(readPaymentId(withExtensions(extensions))).toEqual({ ok: true, id });
  });

  it("reads no id from a payload without extensions, or with the declaration echoed without one", () => {
    expect(readPaymentId(base)).toEqual({ ok: true, id: null });
    expect(readPaymentId(withExtensions({ bazaar: {} }))).toEqual({ ok: true, id: null });
    expect(readPaymentId(withExtensions({ [PAYMENT_IDENTIFIER]: PAYMENT_IDENTIFIER_DECLARATION }))).toEqual({
      ok: true,
      id: null,
    });
  });

  it.each([
    ["extensions not an object", "nope", "malformed_extension"],
    ["extensions an array", [], "malformed_extension"],
    ["the extension not an object", { [PAYMENT_IDENTIFIER]: "pay_0123456789abcdef" }, "malformed_extension"],
    ["no info", { [PAYMENT_IDENTIFIER]: { id: "pay_0123456789abcdef" } }, "malformed_extension"],
    [
      "info without required",
      { [PAYMENT_IDENTIFIER]: { info: { id: "pay_0123456789abcdef" } } },
      "malformed_extension",
    ],
    ["an id too short", { [PAYMENT_IDENTIFIER]: { info: { required: false, id: "short" } } }, "malformed_id"],
    ["an id too long", { [PAYMENT_IDENTIFIER]: { info: { required: false, id: "a".repeat(129) } } }, "malformed_id"],
    [
      "an id with other characters",
      { [PAYMENT_IDENTIFIER]: { info: { required: false, id: "pay_0123456789abc!" } } },
      "malformed_id",
    ],
    [
      "an id with a space",
      { [PAYMENT_IDENTIFIER]: { info: { required: false, id: "pay 0123456789abcd" } } },
      "malformed_id",
    ],
    [
      "an id that is a number",
      { [PAYMENT_IDENTIFIER]: { info: { required: false, id: 1234567890123456 } } },
      "malformed_id",
    ],
    ["an id that is null", { [PAYMENT_IDENTIFIER]: { info: { required: false, id: null } } }, "malformed_id"],
  ])("rejects malformed input: %s", (_label, extensions, reason) => {
    expect(readPaymentId(withExtensions(extensions))).toMatchObject({ ok: false, reason });
  });

  it("accepts the bounds: 16 and 128 characters", () => {
    for (const id of ["a".repeat(16), `${"A_-9".repeat(32)}`]) {
      expect(readPaymentId(withExtensions({ [PAYMENT_IDENTIFIER]: { info: { required: false, id } } }))).toEqual({
        ok: true,
        id,
      });
    }
  });
});
