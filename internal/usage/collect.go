package usage

import (
	"context"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// Collect gathers the usage summaries of the sessions of project, or of
// every project of the store when project is nil. It reads the projects'
// index.json files and only the bytes of session files that their
// summaries have not counted yet (see storage.Project.Usage).
func Collect(ctx context.Context, st *storage.Store, project *storage.Project) ([]storage.SessionUsage, error) {
	projects := []*storage.Project{project}
	if project == nil {
		var err error
		if projects, err = st.Projects(); err != nil {
			return nil, err
		}
	}
	var out []storage.SessionUsage
	for _, p := range projects {
		us, err := p.Usage(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, us...)
	}
	return out, nil
}
