package store_test

import (
	"context"
	"testing"
)

func TestSettingsRoundTrip(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	if v, ok, err := s.Setting(ctx, "theme"); err != nil || ok || v != "" {
		t.Fatalf("missing setting = %q, %v, %v; want \"\", false, nil", v, ok, err)
	}
	must(t, s.SetSetting(ctx, "theme", "dark"))
	must(t, s.SetSetting(ctx, "theme", "light"))
	must(t, s.SetSetting(ctx, "empty", ""))
	if v, ok, err := s.Setting(ctx, "theme"); err != nil || !ok || v != "light" {
		t.Errorf("Setting(theme) = %q, %v, %v; want light, true, nil", v, ok, err)
	}
	if v, ok, err := s.Setting(ctx, "empty"); err != nil || !ok || v != "" {
		t.Errorf("Setting(empty) = %q, %v, %v; want \"\", true, nil", v, ok, err)
	}
}

func TestDeleteSettingForgetsOnlyItsKey(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	must(t, s.SetSetting(ctx, "a", "1"))
	must(t, s.SetSetting(ctx, "b", "2"))
	must(t, s.DeleteSetting(ctx, "a"))
	must(t, s.DeleteSetting(ctx, "never-set"))
	if _, ok, err := s.Setting(ctx, "a"); err != nil || ok {
		t.Errorf("deleted setting still there (ok=%v, err=%v)", ok, err)
	}
	if v, ok, err := s.Setting(ctx, "b"); err != nil || !ok || v != "2" {
		t.Errorf("other setting = %q, %v, %v; want 2", v, ok, err)
	}
}
