package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// ---------------------------------------------------------------------------------------------
// REST.

var restClient = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1024, MaxIdleConns: 1024}}

// call sends a JSON request with the API key (token "") or a bearer token and decodes a 2xx
// answer into out.
func call(method, url, token string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if token == "" {
		req.Header.Set("apikey", apiKey)
	} else {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := restClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %d %s", method, url, resp.StatusCode, bytes.TrimSpace(raw))
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

type user struct {
	uid, token string
	socks      []*sock
}

// createUsers creates the uids and mints their tokens, 32 at a time.
func createUsers(base string, uids []string) ([]*user, error) {
	users := make([]*user, len(uids))
	err := testutil.Parallel(len(uids), 32, func(i int) error {
		uid := uids[i]
		if err := call("POST", base+"/users", "", map[string]any{"uid": uid, "name": "User " + uid}, nil); err != nil {
			return err
		}
		var tok struct {
			AuthToken string `json:"authToken"`
		}
		if err := call("POST", base+"/users/"+uid+"/auth_tokens", "", map[string]any{}, &tok); err != nil {
			return err
		}
		users[i] = &user{uid: uid, token: tok.AuthToken}
		return nil
	})
	return users, err
}

// createGroup creates a public group owned by owner and adds members, 100 per request.
func createGroup(base string, owner *user, guid string, members []*user) error {
	chunk := func(us []*user) []map[string]string {
		var out []map[string]string
		for _, u := range us {
			out = append(out, map[string]string{"uid": u.uid})
		}
		return out
	}
	first := members[:min(100, len(members))]
	if err := call("POST", base+"/groups", owner.token, map[string]any{"guid": guid, "name": guid, "type": "public", "members": chunk(first)}, nil); err != nil {
		return err
	}
	for i := len(first); i < len(members); i += 100 {
		if err := call("POST", base+"/groups/"+guid+"/members", owner.token, map[string]any{"members": chunk(members[i:min(i+100, len(members))])}, nil); err != nil {
			return err
		}
	}
	return nil
}
