package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/switchboard-mcp/switchboard/relay/buildinfo"
)

func TestMetricsListenerServesTheRelaysMetricsAlone(t *testing.T) {
	addr, stop, err := serveMetrics("127.0.0.1:0", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	resp, err := http.Get("http://" + addr.String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	info := fams["switchboard_build_info"]
	if info == nil || len(info.Metric) != 1 || info.Metric[0].Label[0].GetValue() != buildinfo.Version() {
		t.Errorf("switchboard_build_info %v, want this build's version", info)
	}
	resp, err = http.Get("http://" + addr.String() + "/")
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET / on the metrics listener: %d, want 404", resp.StatusCode)
		}
	}

	if at, stop, err := serveMetrics("", nil); err != nil || at != nil {
		t.Errorf("an empty --metrics-addr listened at %v (%v)", at, err)
	} else {
		stop()
	}
}

func TestLogFormatJSONWritesOneObjectALine(t *testing.T) {
	var buf bytes.Buffer
	logger, err := newLogger(&buf, "info", "json")
	if err != nil {
		t.Fatal(err)
	}
	logger.Info("switchboard listening", "addr", "127.0.0.1:8080")
	logger.Debug("not at info")
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil || line["msg"] != "switchboard listening" || line["addr"] != "127.0.0.1:8080" {
		t.Errorf("json log %q: %v", buf.String(), err)
	}
	buf.Reset()
	logger, _ = newLogger(&buf, "info", "text")
	logger.Info("hello")
	if !strings.Contains(buf.String(), "msg=hello") {
		t.Errorf("text log %q", buf.String())
	}
	if _, err := newLogger(&buf, "info", "xml"); err == nil || !strings.Contains(err.Error(), "text or json") {
		t.Errorf("log format xml: %v", err)
	}
}
