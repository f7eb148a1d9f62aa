package setup

import (
	"errors"

	"golang.org/x/sys/windows/registry"
)

// hkcu is the current user's registry hive.
var hkcu registryKeys = currentUser{}

// currentUser is HKEY_CURRENT_USER through golang.org/x/sys/windows/registry.
type currentUser struct{}

func (currentUser) Exists(path string) (bool, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, path, registry.QUERY_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	k.Close()
	return true, nil
}

func (currentUser) SetString(path, name, value string) error {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, path, registry.SET_VALUE)
	if err != nil {
		return err
	}
	defer k.Close()
	return k.SetStringValue(name, value)
}

func (currentUser) Delete(path string) error {
	err := registry.DeleteKey(registry.CURRENT_USER, path)
	if errors.Is(err, registry.ErrNotExist) {
		return nil
	}
	return err
}
