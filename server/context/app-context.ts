// What a request's service code is given: the runtime (server/context/runtime.ts), under the name the payment and
// call code has always used for it.
export type { Runtime as AppContext } from "./runtime";
