package machine

import (
	"context"
	"log/slog"

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/daemon"
)

// Service describes the OS service that runs `forgesync daemon` with the
// configuration file of cfg: a service of the current user when user is
// set, else a machine service that resolves the config as the machine
// does and admits the installing user to the socket's folder. run is what
// the service runs (nil to only control it).
func Service(cfg *config.Config, user bool, log *slog.Logger, run func(ctx context.Context) error) daemon.ServiceConfig {
	args := []string{"daemon"}
	if cfg.File != "" {
		args = append(args, "--config", cfg.File)
	}
	if !user {
		args = append(args, "--machine")
		if sid, err := daemon.CurrentUserSID(); err == nil {
			args = append(args, "--owner", sid)
		}
	}
	return daemon.ServiceConfig{
		Name: "forgesync", DisplayName: "forgesync",
		Description: "Keeps MJOLNIR Forge packs installed, validated and in sync",
		Arguments:   args, Run: run, Logger: log, UserService: user,
	}
}

// CheckServiceInstall reports why the service of cfg cannot be installed:
// a configuration the service would not find, no game folder, or folders
// that cannot be given their ACL (see [SecureFolders], which warns on log).
func CheckServiceInstall(cfg *config.Config, user bool, log *slog.Logger) error {
	if err := config.CheckServiceInstall(cfg.File, user); err != nil {
		return err
	}
	if err := cfg.RequireGame(); err != nil {
		return err
	}
	return SecureFolders(cfg, "", log)
}
