// The chef sample's show-recipe-card frontend action: its handler checks the arguments and
// answers the agent; the card is drawn from the stored assistant message's tool call, so it
// stays in the conversation's history.
import { Chat } from "@agentry/chat-sdk";
import type { AgentActionHandler, ChatMessageTemplate } from "@agentry/ui-kit";

export interface Recipe {
  title: string;
  steps: string[];
}

export function parseRecipe(args: unknown): Recipe | undefined {
  if (typeof args !== "object" || args === null) return undefined;
  const { title, steps } = args as { title?: unknown; steps?: unknown };
  if (typeof title !== "string" || !Array.isArray(steps) || !steps.every((s) => typeof s === "string")) return undefined;
  return { title, steps: steps as string[] };
}

export const showRecipeCard: AgentActionHandler = (args) => {
  const recipe = parseRecipe(args);
  if (!recipe) throw new Error("show-recipe-card needs a title and a list of steps");
  return { shown: true, title: recipe.title, steps: recipe.steps.length };
};

export function RecipeCard({ recipe }: { recipe: Recipe }) {
  return (
    // A group, not a region: a conversation may show the same recipe twice, and landmarks must
    // have distinct names.
    <div className="agentry-web__recipe" role="group" aria-label={`Recipe: ${recipe.title}`}>
      <p className="agentry-web__recipe-kicker">Recipe card</p>
      <h2 className="agentry-web__recipe-title">{recipe.title}</h2>
      <ol className="agentry-web__recipe-steps">
        {recipe.steps.map((s, i) => (
          <li key={i}>{s}</li>
        ))}
      </ol>
    </div>
  );
}

function recipesOf(m: Chat.BaseMessage): Recipe[] {
  if (!(m instanceof Chat.AgenticMessage)) return [];
  const out: Recipe[] = [];
  for (const c of m.getToolCalls()) {
    if (c.name !== "show-recipe-card") continue;
    try {
      const r = parseRecipe(JSON.parse(c.arguments) as unknown);
      if (r) out.push(r);
    } catch {
      // incomplete arguments: no card
    }
  }
  return out;
}

/** Assistant messages with a show-recipe-card call get the card under their text (in place of
 * their reactions row); the others answer null and keep theirs. */
export const recipeTemplates: ChatMessageTemplate[] = [
  {
    category: Chat.CATEGORY_AGENTIC,
    type: "assistant",
    footerView: (m) => {
      const recipes = recipesOf(m);
      return recipes.length ? recipes.map((r, i) => <RecipeCard key={i} recipe={r} />) : null;
    },
  },
];
