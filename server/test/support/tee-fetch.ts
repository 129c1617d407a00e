// A fetch for tests that hands the client (an SDK under test) each response unchanged and keeps a copy of what went
// over the wire: the request body it sent and the response body's text, so a test can read the raw stream the SDK
// parsed (the receipt chunk) and hash the messages exactly as the SDK sent them.

/** One exchange as the wire saw it. */
export interface TeedExchange {
  url: string;
  requestBody: string | null;
  /** The whole response body, once the client has read it (or the stream ended). */
  responseText: Promise<string>;
}

export interface TeeingFetch {
  fetch: typeof fetch;
  exchanges: TeedExchange[];
}

/** Wraps `inner`, recording every exchange that passes through it. */
export function teeingFetch(inner: typeof fetch = fetch): TeeingFetch {
  const exchanges: TeedExchange[] = [];
  const wrapped = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    const requestBody = typeof init?.body === "string" ? init.body : null;
    const res = await inner(input, init);
    if (!res.body) {
      exchanges.push({ url, requestBody, responseText: Promise.resolve("") });
      return res;
    }
    const [forClient, copy] = res.body.tee();
    exchanges.push({ url, requestBody, responseText: new Response(copy).text() });
    return new Response(forClient, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return { fetch: wrapped as typeof fetch, exchanges };
}
