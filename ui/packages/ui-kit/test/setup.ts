import { configure } from "@testing-library/react";

// The unit tests run beside browser tests and Go builds on small CI machines: findBy/waitFor
// wait up to 10 s instead of 1 s, so a busy machine slows a test down instead of failing it.
configure({ asyncUtilTimeout: 10_000 });
