! io_fortran.f90: the seeds' Fortran "normal I/O": unformatted sequential WRITE/READ, one record per
! call, behind C-callable entry points (ISO_C_BINDING) used by io_fortran.c. Each record is framed
! by gfortran's 4-byte length markers (records stay below 2 GiB, so no subrecords).
module cc_io_fortran
  use iso_c_binding
  implicit none
  private
  public :: cc_fortran_open, cc_fortran_record, cc_fortran_end

contains

  subroutine copy_message(text, msg, msg_len)
    character(len=*), intent(in) :: text
    integer(c_int), intent(in) :: msg_len
    character(kind=c_char), intent(out) :: msg(msg_len)
    integer :: i, n
    n = min(len_trim(text), msg_len - 1)
    do i = 1, n
      msg(i) = text(i:i)
    end do
    msg(n + 1) = c_null_char
  end subroutine copy_message

  subroutine cc_fortran_open(path, path_len, for_write, unit, ierr, msg, msg_len) &
      bind(C, name="cc_fortran_open")
    integer(c_int), value :: path_len, for_write, msg_len
    character(kind=c_char), intent(in) :: path(path_len)
    integer(c_int), intent(out) :: unit, ierr
    character(kind=c_char), intent(out) :: msg(msg_len)
    character(len=:), allocatable :: name
    character(len=256) :: iomsg
    integer :: i, u, stat
    allocate (character(len=path_len) :: name)
    do i = 1, path_len
      name(i:i) = path(i)
    end do
    iomsg = ''
    u = -1
    if (for_write /= 0) then
      open (newunit=u, file=name, form='unformatted', access='sequential', action='write', &
            status='replace', iostat=stat, iomsg=iomsg)
    else
      open (newunit=u, file=name, form='unformatted', access='sequential', action='read', &
            status='old', iostat=stat, iomsg=iomsg)
    end if
    unit = u
    ierr = stat
    call copy_message(iomsg, msg, msg_len)
  end subroutine cc_fortran_open

  ! One record of nbytes between data and the unit: WRITE when for_write /= 0, else READ.
  subroutine cc_fortran_record(unit, data, nbytes, for_write, ierr, msg, msg_len) &
      bind(C, name="cc_fortran_record")
    integer(c_int), value :: unit, for_write, msg_len
    integer(c_int64_t), value :: nbytes
    integer(c_int8_t), intent(inout) :: data(nbytes)
    integer(c_int), intent(out) :: ierr
    character(kind=c_char), intent(out) :: msg(msg_len)
    character(len=256) :: iomsg
    integer :: stat
    iomsg = ''
    if (for_write /= 0) then
      write (unit, iostat=stat, iomsg=iomsg) data
    else
      read (unit, iostat=stat, iomsg=iomsg) data
    end if
    ierr = stat
    call copy_message(iomsg, msg, msg_len)
  end subroutine cc_fortran_record

  ! FLUSH the unit (close_it == 0: its records handed to the system) or CLOSE it.
  subroutine cc_fortran_end(unit, close_it, ierr, msg, msg_len) bind(C, name="cc_fortran_end")
    integer(c_int), value :: unit, close_it, msg_len
    integer(c_int), intent(out) :: ierr
    character(kind=c_char), intent(out) :: msg(msg_len)
    character(len=256) :: iomsg
    integer :: stat
    iomsg = ''
    if (close_it /= 0) then
      close (unit, iostat=stat, iomsg=iomsg)
    else
      flush (unit, iostat=stat, iomsg=iomsg)
    end if
    ierr = stat
    call copy_message(iomsg, msg, msg_len)
  end subroutine cc_fortran_end

end module cc_io_fortran
