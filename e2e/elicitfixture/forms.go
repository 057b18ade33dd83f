package elicitfixture

import "encoding/json"

// Form is one form a fixture asks for, through the tool form_<Name>.
type Form struct {
	Name    string
	Message string
	Schema  json.RawMessage
	// Example is an answer the schema accepts.
	Example map[string]any
}

// Forms are the forms of the stateful fixture, one per schema variant of
// the restricted elicitation schema, and "every", with one field of each
// kind (a single select with more options than radio buttons show, too).
var Forms = []Form{
	{
		Name:    "strings",
		Message: "Tell us about yourself.",
		Schema: json.RawMessage(`{"type":"object","properties":{
			"name":{"type":"string","title":"Name","description":"Two to forty characters.","minLength":2,"maxLength":40},
			"code":{"type":"string","title":"Invite code","pattern":"^[A-Z]{3}-[0-9]{3}$"},
			"email":{"type":"string","title":"Email","format":"email"},
			"website":{"type":"string","title":"Website","format":"uri"},
			"birthday":{"type":"string","title":"Birthday","format":"date"},
			"meeting":{"type":"string","title":"Meeting","format":"date-time"}
		},"required":["name","email"]}`),
		Example: map[string]any{"name": "Ada Lovelace", "code": "ABC-123", "email": "ada@example.com",
			"website": "https://example.com/ada", "birthday": "1815-12-10", "meeting": "2026-03-01T10:30:00Z"},
	},
	{
		Name:    "numbers",
		Message: "How old are you, and how sure?",
		Schema: json.RawMessage(`{"type":"object","properties":{
			"age":{"type":"integer","title":"Age","minimum":0,"maximum":150},
			"confidence":{"type":"number","title":"Confidence","minimum":0,"maximum":1}
		},"required":["age"]}`),
		Example: map[string]any{"age": 36.0, "confidence": 0.75},
	},
	{
		Name:    "boolean",
		Message: "Subscribe to the newsletter?",
		Schema: json.RawMessage(`{"type":"object","properties":{
			"subscribe":{"type":"boolean","title":"Subscribe","description":"One mail a month."}
		},"required":["subscribe"]}`),
		Example: map[string]any{"subscribe": true},
	},
	{
		Name:    "enum",
		Message: "Pick a colour.",
		Schema: json.RawMessage(`{"type":"object","properties":{
			"color":{"type":"string","title":"Colour","enum":["red","green","blue"]}
		},"required":["color"]}`),
		Example: map[string]any{"color": "green"},
	},
	{
		Name:    "titled",
		Message: "Choose a plan.",
		Schema: json.RawMessage(`{"type":"object","properties":{
			"plan":{"type":"string","title":"Plan","oneOf":[
				{"const":"free","title":"Free"},
				{"const":"pro","title":"Pro (9 € a month)"},
				{"const":"team","title":"Team"}
			]}
		},"required":["plan"]}`),
		Example: map[string]any{"plan": "pro"},
	},
	{
		Name:    "enum_names",
		Message: "Which size?",
		Schema: json.RawMessage(`{"type":"object","properties":{
			"size":{"type":"string","title":"Size","enum":["s","m","l"],"enumNames":["Small","Medium","Large"]}
		},"required":["size"]}`),
		Example: map[string]any{"size": "m"},
	},
	{
		Name:    "multi_enum",
		Message: "Pick one to three toppings.",
		Schema: json.RawMessage(`{"type":"object","properties":{
			"toppings":{"type":"array","title":"Toppings","minItems":1,"maxItems":3,
				"items":{"type":"string","enum":["cheese","ham","olives","basil"]}}
		},"required":["toppings"]}`),
		Example: map[string]any{"toppings": []any{"cheese", "basil"}},
	},
	{
		Name:    "multi_titled",
		Message: "Which days suit you? At most two.",
		Schema: json.RawMessage(`{"type":"object","properties":{
			"days":{"type":"array","title":"Days","maxItems":2,
				"items":{"anyOf":[
					{"const":"mon","title":"Monday"},
					{"const":"tue","title":"Tuesday"},
					{"const":"wed","title":"Wednesday"}
				]}}
		}}`),
		Example: map[string]any{"days": []any{"mon", "wed"}},
	},
	{
		Name:    "defaults",
		Message: "Check the settings; the defaults are filled in.",
		Schema: json.RawMessage(`{"type":"object","properties":{
			"name":{"type":"string","title":"Name","default":"Ada"},
			"count":{"type":"integer","title":"Count","minimum":1,"maximum":10,"default":3},
			"ratio":{"type":"number","title":"Ratio","default":0.5},
			"notify":{"type":"boolean","title":"Notify me","default":true},
			"color":{"type":"string","title":"Colour","enum":["red","green","blue"],"default":"green"},
			"plan":{"type":"string","title":"Plan","oneOf":[{"const":"free","title":"Free"},{"const":"pro","title":"Pro"}],"default":"pro"},
			"toppings":{"type":"array","title":"Toppings","items":{"type":"string","enum":["cheese","ham"]},"default":["cheese"]}
		},"required":["name","color"]}`),
		Example: map[string]any{"name": "Grace", "count": 5.0, "ratio": 0.25, "notify": false, "color": "blue", "plan": "free", "toppings": []any{"ham"}},
	},
	{
		Name:    "every",
		Message: "One of each: every kind of field a form may have.",
		Schema: json.RawMessage(`{"type":"object","properties":{
			"name":{"type":"string","title":"Name","description":"Two to forty characters.","minLength":2,"maxLength":40},
			"email":{"type":"string","title":"Email","format":"email"},
			"website":{"type":"string","title":"Website","format":"uri"},
			"birthday":{"type":"string","title":"Birthday","format":"date"},
			"meeting":{"type":"string","title":"Meeting","format":"date-time"},
			"age":{"type":"integer","title":"Age","minimum":0,"maximum":150},
			"ratio":{"type":"number","title":"Ratio","minimum":0,"maximum":1},
			"subscribe":{"type":"boolean","title":"Subscribe","description":"One mail a month."},
			"color":{"type":"string","title":"Colour","enum":["red","green","blue"]},
			"plan":{"type":"string","title":"Plan","oneOf":[{"const":"free","title":"Free"},{"const":"pro","title":"Pro"}]},
			"country":{"type":"string","title":"Country","enum":["fr","de","it","es","pt","nl"],
				"enumNames":["France","Germany","Italy","Spain","Portugal","Netherlands"]},
			"toppings":{"type":"array","title":"Toppings","maxItems":3,
				"items":{"type":"string","enum":["cheese","ham","olives","basil"]}}
		},"required":["name","email","country"]}`),
		Example: map[string]any{"name": "Ada Lovelace", "email": "ada@example.com", "website": "https://example.com/ada",
			"birthday": "1815-12-10", "meeting": "2026-03-01T10:30:00Z", "age": 36.0, "ratio": 0.75, "subscribe": true,
			"color": "blue", "plan": "pro", "country": "it", "toppings": []any{"ham", "olives"}},
	},
}

// formNamed returns the form of the given name.
func formNamed(name string) Form {
	for _, f := range Forms {
		if f.Name == name {
			return f
		}
	}
	panic("elicitfixture: no form " + name)
}
