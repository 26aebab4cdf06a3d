#!/usr/bin/env python3
"""check_export_viewers.py: the solution export opens in the viewers users have.
    check_export_viewers.py meshio|vtk STEM NX NY NZ E NU TRACTION
meshio: reads STEM.xmf (Hexahedron grid) and STEM-deformed.xmf, checks points, cells (unit cubes in
VTK order), displacement, deformed = points + displacement, and the HDF5 attributes (h5py).
vtk: vtkXdmfReader (XDMF 2, what ParaView's "Xdmf Reader" uses) reads STEM.xmf: the cell count,
the cell type (VTK_HEXAHEDRON), the point count and the displacement array.
Exit 77 (ctest SKIP_RETURN_CODE) with a message when the viewer's Python package is not installed
(pip install meshio h5py / pip install vtk)."""
import sys

SKIP = 77


def need(module, hint):
    try:
        return __import__(module)
    except ImportError:
        print(f"SKIP: python module '{module}' not installed ({hint})")
        sys.exit(SKIP)


def main():
    viewer, stem = sys.argv[1], sys.argv[2]
    nx, ny, nz = (int(a) for a in sys.argv[3:6])
    E, nu, traction = (float(a) for a in sys.argv[6:9])
    n, n_cells = nx * ny * nz, (nx - 1) * (ny - 1) * (nz - 1)
    if viewer == "meshio":
        np = need("numpy", "pip install numpy")
        meshio = need("meshio", "pip install meshio h5py")
        h5py = need("h5py", "pip install h5py")
        m = meshio.read(stem + ".xmf")
        assert m.points.shape == (n, 3), m.points.shape
        assert len(m.cells) == 1 and m.cells[0].type == "hexahedron", m.cells
        hexa = m.cells[0].data
        assert hexa.shape == (n_cells, 8), hexa.shape
        p = m.points[hexa]  # [C][8][3]
        # unit cubes in VTK order: edges 0-1 = +x, 0-3 = +y, 0-4 = +z
        assert np.allclose(p[:, 1] - p[:, 0], [1, 0, 0]) and np.allclose(p[:, 3] - p[:, 0], [0, 1, 0])
        assert np.allclose(p[:, 4] - p[:, 0], [0, 0, 1]) and np.allclose(p[:, 6] - p[:, 0], [1, 1, 1])
        u = m.point_data["displacement"]
        assert u.shape == (n, 3) and np.isfinite(u).all() and np.abs(u).max() > 0, u
        # traction in +z on the top face: the top moves up, the bottom (fixed in z) does not
        top, bottom = m.points[:, 2] == nz - 1, m.points[:, 2] == 0
        assert (u[top, 2] > 0).all() and np.allclose(u[bottom, 2], 0), (u[top, 2], u[bottom, 2])
        d = m.point_data["deformed_coordinates"]
        assert np.array_equal(d, m.points + u)
        md = meshio.read(stem + "-deformed.xmf")
        assert np.array_equal(md.points, d) and np.array_equal(md.cells[0].data, hexa)
        with h5py.File(stem + ".h5", "r") as f:
            a = f.attrs
            assert (int(a["nx"]), int(a["ny"]), int(a["nz"])) == (nx, ny, nz), dict(a)
            assert (float(a["E"]), float(a["nu"]), float(a["traction"])) == (E, nu, traction), dict(a)
            version = a["cubecg_version"]
            version = version.decode() if isinstance(version, bytes) else str(version)
            assert version.count(".") == 2, version
        print(f"meshio {meshio.__version__}: {n} points, {n_cells} hexahedra, displacement, "
              f"deformed grid and attributes OK (cubecg {version})")
    elif viewer == "vtk":
        vtk = need("vtk", "pip install vtk")
        if not hasattr(vtk, "vtkXdmfReader"):
            print(f"SKIP: this vtk {vtk.vtkVersion.GetVTKVersion()} has no vtkXdmfReader")
            sys.exit(SKIP)
        r = vtk.vtkXdmfReader()
        r.SetFileName(stem + ".xmf")
        r.Update()
        out = r.GetOutputDataObject(0)
        if out.IsA("vtkMultiBlockDataSet"):
            out = out.GetBlock(0)
        assert out is not None and out.IsA("vtkUnstructuredGrid"), out
        assert out.GetNumberOfPoints() == n, out.GetNumberOfPoints()
        assert out.GetNumberOfCells() == n_cells, out.GetNumberOfCells()
        types = {out.GetCellType(i) for i in range(out.GetNumberOfCells())}
        assert types == {vtk.VTK_HEXAHEDRON}, types
        disp = out.GetPointData().GetArray("displacement")
        assert disp is not None and disp.GetNumberOfComponents() == 3, disp
        assert disp.GetNumberOfTuples() == n
        # the hexahedra are not inside out (VTK's own cell volume, unit cubes)
        cell = out.GetCell(0)
        vol = vtk.vtkMeshQuality.HexVolume(cell)
        assert abs(vol - 1.0) < 1e-12, vol
        print(f"vtk {vtk.vtkVersion.GetVTKVersion()} vtkXdmfReader: unstructured grid, {n} points, "
              f"{n_cells} VTK_HEXAHEDRON cells (volume 1), displacement OK")
    else:
        sys.exit(f"unknown viewer {viewer}")


if __name__ == "__main__":
    main()
