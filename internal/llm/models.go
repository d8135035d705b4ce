package llm

import (
	"context"
	"fmt"
	"slices"
)

// ListModels returns the ids of the models the server offers (GET
// <base>/models), sorted. A server without the endpoint is an error.
func (c *Client) ListModels(ctx context.Context) ([]string, error) {
	list, err := c.api.ListModels(ctx)
	if err != nil {
		return nil, fmt.Errorf("list models: %w", err)
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}
