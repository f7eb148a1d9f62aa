<#
.SYNOPSIS
  Builds and runs the portable door runtime tests with MSVC, warnings as
  errors (/W4 /WX), and builds the module DLL the same way.

.DESCRIPTION
  Runs from any folder. Uses cl.exe from PATH (a "Developer PowerShell for
  VS" or an x64 Native Tools prompt); otherwise finds Visual Studio with
  vswhere and loads its x64 environment (vcvars64.bat). Exits non-zero when
  a build prints a warning or a test fails.

.EXAMPLE
  pwsh native/lobby/test-forge-doors.ps1
#>
[CmdletBinding()]
param(
  # Where the executables go; a fresh temp folder by default.
  [string]$OutDir = (Join-Path ([IO.Path]::GetTempPath()) ("forge-doors-msvc-" + [guid]::NewGuid()))
)

Set-StrictMode -Version Latest
$ErrorActionPreference = 'Stop'
$here = Split-Path -Parent $MyInvocation.MyCommand.Path

function Import-VsDevEnvironment {
  if (Get-Command cl.exe -ErrorAction SilentlyContinue) { return }
  $vswhere = Join-Path ${env:ProgramFiles(x86)} 'Microsoft Visual Studio\Installer\vswhere.exe'
  if (-not (Test-Path $vswhere)) { throw 'cl.exe is not on PATH and vswhere.exe was not found: install Visual Studio Build Tools with the C++ workload' }
  $vs = & $vswhere -latest -products * -requires Microsoft.VisualStudio.Component.VC.Tools.x86.x64 -property installationPath
  if (-not $vs) { throw 'no Visual Studio installation with the x64 C++ tools was found' }
  $vcvars = Join-Path $vs 'VC\Auxiliary\Build\vcvars64.bat'
  # Run vcvars64 in cmd and copy the resulting environment into this session.
  $lines = & cmd.exe /d /s /c "`"$vcvars`" >nul && set"
  if ($LASTEXITCODE -ne 0) { throw "vcvars64.bat failed ($LASTEXITCODE)" }
  foreach ($line in $lines) {
    $i = $line.IndexOf('=')
    if ($i -gt 0) { [Environment]::SetEnvironmentVariable($line.Substring(0, $i), $line.Substring($i + 1), 'Process') }
  }
  if (-not (Get-Command cl.exe -ErrorAction SilentlyContinue)) { throw 'cl.exe still not found after vcvars64.bat' }
}

# Invoke-Cl compiles with cl.exe and fails on any warning or error.
function Invoke-Cl([string[]]$ClArgs) {
  # cl writes diagnostics to stdout; keep stderr lines from becoming
  # terminating errors under ErrorActionPreference=Stop.
  $ErrorActionPreference = 'Continue'
  $out = & cl.exe @ClArgs 2>&1 | ForEach-Object { "$_" }
  $code = $LASTEXITCODE
  $ErrorActionPreference = 'Stop'
  $out | ForEach-Object { Write-Host $_ }
  if ($code -ne 0) { throw "cl.exe failed ($code)" }
  if ($out | Where-Object { $_ -match ' warning [A-Z]+\d+' }) { throw 'cl.exe printed warnings' }
}

Import-VsDevEnvironment
New-Item -ItemType Directory -Force -Path $OutDir | Out-Null
# Build inside OutDir so objects and PDBs land there without /Fo paths
# (a quoted path ending in a backslash would escape its closing quote).
Push-Location $OutDir
try {

# C11 mode, all level-4 warnings as errors. _CRT_SECURE_NO_WARNINGS only
# silences the CRT's "use sprintf_s" deprecations in the test's own code;
# the runtime header uses none of those functions.
$common = @('/nologo', '/std:c11', '/TC', '/W4', '/WX', '/utf-8', '/D_CRT_SECURE_NO_WARNINGS', "/I$here")

Write-Host '== forge_doors_test.c (MSVC /W4 /WX)'
Invoke-Cl ($common + @('/Od', '/Zi', '/Feforge_doors_test.exe', (Join-Path $here 'forge_doors_test.c')))
& .\forge_doors_test.exe
if ($LASTEXITCODE -ne 0) { throw "forge_doors_test failed ($LASTEXITCODE)" }

Write-Host '== forge_doors_test.c optimized (/O2)'
Invoke-Cl ($common + @('/O2', '/Feforge_doors_test_o2.exe', (Join-Path $here 'forge_doors_test.c')))
& .\forge_doors_test_o2.exe
if ($LASTEXITCODE -ne 0) { throw "forge_doors_test (/O2) failed ($LASTEXITCODE)" }

Write-Host '== forge_doors_module.c as a DLL (/LD)'
Invoke-Cl ($common + @('/O2', '/LD', '/Feforge_doors.dll', (Join-Path $here 'forge_doors_module.c')))

Write-Host '== contract_driver.c'
Invoke-Cl ($common + @('/O2', '/Fecontract_driver.exe', (Join-Path $here 'contract_driver.c')))
} finally {
  Pop-Location
}

Write-Host "MSVC door runtime tests passed ($OutDir)"
