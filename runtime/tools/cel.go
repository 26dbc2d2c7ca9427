package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"
	"google.golang.org/protobuf/types/known/structpb"
)

// DefaultCELCostLimit bounds the work one CEL evaluation may do (the unit is CEL's abstract cost).
const DefaultCELCostLimit = 1_000_000

// DefaultCELTimeout bounds the wall time of one CEL evaluation.
const DefaultCELTimeout = time.Second

// celEnv is built on first use, not at package initialisation: processes that compile no CEL
// tool (agents without one, the chat service, most sub-commands) never pay for it.
var celEnv = sync.OnceValue(mustCELEnv)

func mustCELEnv() *cel.Env {
	env, err := cel.NewEnv(
		cel.Variable("input", cel.MapType(cel.StringType, cel.DynType)),
		cel.OptionalTypes(),
		ext.Strings(),
		ext.Lists(),
		ext.Math(),
		ext.Sets(),
		ext.Encoders(),
		ext.Bindings(),
		cel.CrossTypeNumericComparisons(true),
	)
	if err != nil {
		panic(fmt.Sprintf("failed to build the CEL environment: %v", err))
	}
	return env
}

type celExecutor struct {
	program     cel.Program
	inputSchema map[string]any
}

// compileCEL parses and type-checks an expression; its result must be able to be an object.
func compileCEL(expr string, inputSchema map[string]any, costLimit uint64) (*celExecutor, error) {
	ast, iss := celEnv().Compile(expr)
	if iss.Err() != nil {
		return nil, iss.Err()
	}
	out := ast.OutputType()
	if k := out.Kind(); k != types.MapKind && k != types.DynKind && k != types.AnyKind {
		return nil, fmt.Errorf("the expression returns %s; it must return an object (a map)", out)
	}
	costLimit = cmp.Or(costLimit, DefaultCELCostLimit)
	prg, err := celEnv().Program(ast, cel.CostLimit(costLimit), cel.InterruptCheckFrequency(64))
	if err != nil {
		return nil, err
	}
	return &celExecutor{program: prg, inputSchema: inputSchema}, nil
}

func (e *celExecutor) execute(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
	var in any
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, fmt.Errorf("failed to decode input: %w", err)
	}
	in = coerceIntegers(in, e.inputSchema)
	val, _, err := e.program.ContextEval(ctx, map[string]any{"input": in})
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("CEL evaluation stopped: %w", ctx.Err())
		}
		return nil, fmt.Errorf("CEL evaluation failed: %w", err)
	}
	native, err := val.ConvertToNative(reflect.TypeFor[*structpb.Value]())
	if err != nil {
		return nil, fmt.Errorf("CEL result is not JSON: %w", err)
	}
	pv := native.(*structpb.Value)
	if _, ok := pv.GetKind().(*structpb.Value_StructValue); !ok {
		return nil, fmt.Errorf("CEL result must be an object, got %s", val.Type())
	}
	// encoding/json, not protojson: protojson deliberately varies its whitespace.
	return json.Marshal(pv.AsInterface())
}

// coerceIntegers turns whole JSON numbers into int64 where the schema says "integer", so CEL
// expressions can do integer arithmetic on them; every other number stays a double.
func coerceIntegers(v any, schema map[string]any) any {
	if schema == nil {
		return v
	}
	switch x := v.(type) {
	case float64:
		if schema["type"] == "integer" && x == float64(int64(x)) {
			return int64(x)
		}
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		for k, item := range x {
			sub, _ := props[k].(map[string]any)
			x[k] = coerceIntegers(item, sub)
		}
	case []any:
		items, _ := schema["items"].(map[string]any)
		for i, item := range x {
			x[i] = coerceIntegers(item, items)
		}
	}
	return v
}
