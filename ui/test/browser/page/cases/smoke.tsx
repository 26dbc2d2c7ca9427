// The pipeline's own case: a plain React component (no ui-kit) with a button whose clicks are
// recorded, and the context it was mounted with.
import { useState } from "react";
import { defineCase, record, type CaseContext } from "../case";

const onClick = record("onClick");

function Smoke({ ctx }: { ctx: CaseContext }) {
  const [count, setCount] = useState(0);
  const greeting = typeof ctx.params.greeting === "string" ? ctx.params.greeting : "Hello";
  return (
    <section aria-labelledby="smoke-title" className="smoke">
      <h1 id="smoke-title">{greeting} from the smoke case</h1>
      <p data-testid="host">{ctx.host}</p>
      <button
        type="button"
        onClick={(e) => {
          setCount((c) => c + 1);
          onClick(count + 1, e);
        }}
      >
        Clicked {count} times
      </button>
    </section>
  );
}

export default defineCase((ctx) => <Smoke ctx={ctx} />);
